"""The static graph that ``minitorch.compile`` captures: buffers, and kernel calls on them.

A define-by-run program (what eager minitorch runs) decides each op while it runs. A
*static* graph is the same computation written down first, as data, so that it can be
inspected, optimised and run again without the Python that produced it (TensorFlow 1's
graphs, ``torch.compile``'s FX graphs, tinygrad's JIT). Ours is recorded one level below
the ops, where every op ends: the primitive kernel calls of ``minitorch/dispatch/``.

The graph has two lists a student can walk:

* ``graph.buffers``: every flat storage the computation touches, with its *kind*:

  ======== ================================================================== =========
  kind     what it is                                                         on replay
  ======== ================================================================== =========
  input    the storage of a tensor passed to the function                     the new argument's
  variable a storage that existed before the capture (parameters, optimizer   the same one
           state, gradients): the program's state, updated in place
  constant made from host data during the capture (``x * 0.5``'s 0.5, a      the same one
           ``tensor([..])``, the ones that seed ``backward``)
  temp     allocated by the computation (every intermediate result)           the graph's own
  state    a temp still referenced after the function returned (``p.grad``)  the same one
  ======== ================================================================== =========

* ``graph.nodes``: the kernel calls in the order they ran. A node reads and writes
  ``Operand``s: strided views (shape, strides, offset) of buffers, exactly the ``Strided``
  operands the kernel received, with the buffer's number in place of the storage.

``print(graph)`` lists both, one line each; ``graph.source(node)`` shows the generated
code of a fused node (``minitorch/compiler/passes/fusion.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from minitorch.layout import numel


@dataclass(frozen=True)
class Operand:
    """What a kernel reads or writes: a strided view of buffer ``buffer``."""

    buffer: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int

    def positions(self) -> tuple[int, int] | None:
        """The lowest and highest storage position this view touches (None: empty)."""
        if numel(self.shape) == 0:
            return None
        low = high = self.offset
        for size, stride in zip(self.shape, self.strides):
            reach = (size - 1) * stride
            if reach < 0:
                low += reach
            else:
                high += reach
        return low, high

    def covers(self, count: int) -> bool:
        """Whether this view is the whole buffer of ``count`` elements, in order."""
        expected = 1
        for size, stride in reversed(list(zip(self.shape, self.strides))):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return self.offset == 0 and expected == count

    def __str__(self) -> str:
        text = f"b{self.buffer}[{', '.join(map(str, self.shape))}]"
        if not self.covers(numel(self.shape)):  # say the layout when it is not plain
            text += f"@{self.strides}+{self.offset}" if self.offset else f"@{self.strides}"
        return text


@dataclass
class Buffer:
    """One flat storage of the graph (see the table in the module docstring)."""

    index: int
    kind: str  # "input", "variable", "constant", "temp" or "state"
    count: int  # elements
    dtype: Any  # the NumPy dtype of the storage
    device_type: str
    name: str = ""  # what the student calls it ("x", "model.0.weight", "model.0.weight.grad")
    storage: Any = None  # the storage itself, for variables, constants and state
    input_index: int = -1  # for inputs: which tensor argument (in flattening order) ...
    input_offset: int = 0  # ... and that argument's offset when it was captured
    values: Any = None  # for constants: the host values it was made from
    owner: Any = None  # for named variables: a weak reference to the tensor of that name

    @property
    def nbytes(self) -> int:
        return self.count * self.dtype.itemsize

    def __str__(self) -> str:
        label = f" {self.name}" if self.name else ""
        return f"b{self.index} {self.kind:<8} {self.dtype.name}[{self.count}]{label}"


# For each primitive: where its arguments are operands it writes (positions in the
# backend call's argument list; a list argument is a list of operands), and which of
# those it also reads first (in-place kernels: scatter_add adds into ``out``).
WRITES: dict[str, tuple[int, ...]] = {
    "map": (1,), "zip": (1,), "where": (0,), "reduce": (1,), "arg_reduce": (1,),
    "matmul": (0,), "gather": (0,), "scatter_add": (0,), "scan": (1,), "softmax": (1,),
    "log_softmax_backward": (0,),
    "sort": (0, 1), "lu_factor": (0, 1), "lu_solve": (0,), "svd": (0, 1, 2),
    "optimizer_step": (1, 3),
    "fused": (0,), "check": (),
}  # fmt: skip
READS_WHAT_IT_WRITES = {"scatter_add", "lu_factor", "lu_solve", "optimizer_step"}


def operands_in(value: Any) -> list[Operand]:
    """Every ``Operand`` inside an argument (an operand, or lists and tuples of them)."""
    if isinstance(value, Operand):
        return [value]
    if isinstance(value, (list, tuple)):
        return [o for item in value for o in operands_in(item)]
    return []


@dataclass
class Node:
    """One kernel call: ``primitive`` (``map``, ``zip``, ...) with the backend call's
    arguments ``args``, tensors replaced by ``Operand``s.

    ``op`` and ``phase`` say which user-facing op launched it ("Tanh", "forward";
    "MmBackward0", "backward"). A pass may replace nodes by new ones whose ``code`` is
    a generated kernel (``source`` is its text) called with the same kind of arguments."""

    primitive: str
    args: tuple
    device_type: str
    op: str = ""
    phase: str = "forward"
    code: Any = None  # a generated kernel; None: the backend's primitive
    # For ``optimizer_step``: the Python half of the step, called by each replay for this
    # step's numbers (the last argument): Adam's bias corrections change every step.
    scalars_again: Any = None
    source: str = ""  # the generated kernel's source text
    name: str = ""  # "n0", "n1", ... (set by Graph.renumber)

    @property
    def kernel(self) -> str:
        """The scalar op or rule inside the primitive ("exp", "add", "sgd") or its name."""
        first = self.args[0] if self.args else None
        return first if isinstance(first, str) else self.primitive

    @property
    def writes(self) -> list[Operand]:
        return [o for position in WRITES[self.primitive] for o in operands_in(self.args[position])]

    @property
    def reads(self) -> list[Operand]:
        written = set(WRITES[self.primitive])
        read = [o for i, a in enumerate(self.args) if i not in written for o in operands_in(a)]
        return read + self.writes if self.primitive in READS_WHAT_IT_WRITES else read

    def describe(self, buffers: list[Buffer]) -> str:
        """One line: name, primitive and kernel, what it writes and reads, its op."""
        out = self.writes
        result = ", ".join(str(o) for o in out[:3]) + (" ..." if len(out) > 3 else "")
        inputs = [str(o) for o in self.reads]
        extras = [repr(a) for a in self.args[1:] if not operands_in(a) and not isinstance(a, list)]
        what = self.primitive if self.kernel == self.primitive else f"{self.primitive}:{self.kernel}"
        dtype = buffers[out[0].buffer].dtype.name if out else ""
        strides = f" strides={out[0].strides}" if out else ""
        arguments = ", ".join(inputs[:4] + (["..."] if len(inputs) > 4 else []) + extras)
        return f"{self.name:>4} {result} = {what}({arguments})  {dtype}{strides}  # {self.op} {self.phase}"


@dataclass
class Graph:
    """A captured computation: ``buffers``, ``nodes``, and how to rebuild the results.

    ``outputs`` is the function's return value with every tensor replaced by an
    ``OutputSpec``; ``memory`` is filled by the memory-planning pass (bytes before and
    after); ``passes`` names the passes that ran, in order."""

    buffers: list[Buffer]
    nodes: list[Node]
    outputs: Any = None
    input_names: list[str] = field(default_factory=list)
    passes: list[str] = field(default_factory=list)
    memory: dict[str, int] = field(default_factory=dict)
    # buffer -> the buffer whose storage it shares (set by memory planning; else itself)
    placement: dict[int, int] = field(default_factory=dict)

    def renumber(self) -> Graph:
        """Name the nodes ``n0, n1, ...`` again: a pass changed them. A memory plan made
        for the old nodes no longer holds (two temps it let share a storage may now be
        alive together), so it is dropped: plan memory after the last rewrite
        (``passes.run_passes`` does)."""
        for i, node in enumerate(self.nodes):
            node.name = f"n{i}"
        self.placement, self.memory = {}, {}
        return self

    def buffers_of(self, kind: str) -> list[Buffer]:
        return [b for b in self.buffers if b.kind == kind]

    def temp_bytes(self) -> int:
        """Bytes the graph allocates for itself (temps, after any sharing)."""
        owners = {self.placement.get(b.index, b.index) for b in self.buffers if b.kind == "temp"}
        return sum(self.buffers[i].nbytes for i in owners)

    def source(self, node: Node | int | str) -> str:
        """The generated source of a fused node (by node, position or name)."""
        if isinstance(node, int):
            node = self.nodes[node]
        elif isinstance(node, str):
            node = next(n for n in self.nodes if n.name == node)
        if not node.source:
            raise ValueError(f"node {node.name} runs the backend's {node.primitive} kernel: "
                             "it has no generated source")
        return node.source

    def __str__(self) -> str:
        inputs = ", ".join(self.input_names)
        kinds = ("input", "variable", "constant", "temp", "state")
        counts = {kind: len(self.buffers_of(kind)) for kind in kinds}
        summary = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n)
        lines = [f"graph({inputs}): {len(self.nodes)} nodes; buffers: {summary}"]
        if self.passes:
            lines.append(f"  passes: {', '.join(self.passes)}")
        if self.memory:
            before, after = self.memory["before"], self.memory["after"]
            lines.append(f"  temp memory: {before} bytes before planning, {after} after")
        lines += [f"  {b}" for b in self.buffers if b.kind != "temp"]
        lines += [node.describe(self.buffers) for node in self.nodes]
        lines.append(f"  return {describe_outputs(self.outputs)}")
        return "\n".join(lines)

    __repr__ = __str__


@dataclass(frozen=True)
class OutputSpec:
    """A tensor the function returned: a view of a buffer, in a dtype and on a device."""

    operand: Operand
    dtype: Any  # a minitorch dtype
    device: Any

    def __str__(self) -> str:
        return str(self.operand)


def describe_outputs(outputs: Any) -> str:
    if isinstance(outputs, OutputSpec):
        return str(outputs)
    if isinstance(outputs, (list, tuple)):
        inner = ", ".join(describe_outputs(o) for o in outputs)
        return f"({inner})" if isinstance(outputs, tuple) else f"[{inner}]"
    if isinstance(outputs, dict):
        return "{" + ", ".join(f"{k!r}: {describe_outputs(v)}" for k, v in outputs.items()) + "}"
    return repr(outputs)
