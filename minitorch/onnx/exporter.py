"""``minitorch.onnx.export``: a model's forward, captured as a static graph, saved as ONNX.

ONNX is a file format for computation graphs that many runtimes execute (onnxruntime,
TensorRT, a browser's WebGPU). Exporting needs the graph written down, which is exactly
what ``minitorch.compile`` captures (``minitorch/compiler/``): so the exporter

1. copies each input tensor into a storage of its own, in order (the ONNX input is a
   plain tensor, with no strides);
2. runs ``model(*args)`` once, in eval mode and under ``no_grad``, with a ``Recorder``
   listening to dispatch (``dispatch.capturing``): every kernel call becomes a node;
3. drops the calls whose results the outputs do not need (the ``dead_code`` pass) and
   names the parameters (``0.weight``);
4. writes each node as ONNX ops (``primitives.py``), each view of a buffer as the ops
   that read or write it (``views.py``), parameters and constants as initializers; an op
   on an element type its schema does not allow is refused here (``schemas.py``);
5. checks the model with ``onnx.checker`` and saves it.

``f`` and ``opset_version`` are checked before the model runs, the names once the graph
says how many inputs and outputs there are.

Like ``torch.onnx.export``'s tracing, this records one run: Python control flow is baked
in, and every shape is fixed to the example's (the batch size too).
"""

from __future__ import annotations

import os
from typing import IO, Any

import onnx
from onnx import helper

from minitorch import dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.compiler.capture import CaptureError, Recorder
from minitorch.compiler.graph import Buffer, Graph
from minitorch.compiler.guards import flatten_arguments
from minitorch.compiler.naming import name_buffers
from minitorch.compiler.passes.dead_code import dead_code
from minitorch.compiler.replay import flatten_outputs
from minitorch.nn.module import Module
from minitorch.onnx.primitives import emit
from minitorch.onnx.views import OnnxGraphBuilder, element_type

DEFAULT_OPSET = 18  # the reductions take their axes as an input from opset 18 on
OLDEST_OPSET = 18
NEWEST_OPSET = 28  # the newest the tests have run through onnxruntime


def export(model: Any, args: Any, f: str | os.PathLike | IO[bytes], *,
           input_names: list[str] | None = None, output_names: list[str] | None = None,
           opset_version: int | None = None) -> onnx.ModelProto:  # fmt: skip
    """Save ``model``'s forward on ``args`` (a tensor or a tuple of arguments) as an ONNX
    model in ``f`` (a path or a binary file), and return the model.

    ``input_names`` and ``output_names`` name the graph's inputs and outputs in order
    (default: the forward's argument names, ``output``). A ``Module`` is run in eval mode
    (dropout off, batch norm on its running statistics) and put back as it was. The
    shapes are the example's: run the exported model on inputs of the same shapes."""
    opset = check_opset(opset_version)
    check_destination(f)
    args = own_copies(args if isinstance(args, tuple) else (args,))
    graph, shapes = capture(model, args)
    onnx_model = build_model(graph, shapes, input_names, output_names, opset)
    onnx.checker.check_model(onnx_model, full_check=True)
    onnx.save(onnx_model, f)
    return onnx_model


def check_opset(opset_version: Any) -> int:
    """The opset to write: ours, unless asked for another in the range we write (and the
    installed ``onnx`` package knows)."""
    if opset_version is None:
        return DEFAULT_OPSET
    if not isinstance(opset_version, int) or isinstance(opset_version, bool):
        raise TypeError(f"opset_version must be an int, got {type(opset_version).__name__}")
    newest = min(NEWEST_OPSET, onnx.defs.onnx_opset_version())
    if not OLDEST_OPSET <= opset_version <= newest:
        raise ValueError(
            f"minitorch.onnx writes opsets {OLDEST_OPSET} to {newest} "
            f"(onnx {onnx.__version__} knows up to {onnx.defs.onnx_opset_version()}), "
            f"got opset_version={opset_version}"
        )
    return opset_version


def check_destination(f: Any) -> None:
    """``f`` is a path or a binary file object, as ``torch.onnx.export`` takes. An int is
    refused: ``open(fd)`` would write to that file descriptor and close it (stdout...)."""
    if isinstance(f, (str, os.PathLike)) or hasattr(f, "write"):
        return
    hint = " (for a file descriptor, pass open(fd, 'wb', closefd=False))" if isinstance(f, int) else ""
    raise TypeError(f"minitorch.onnx.export writes to a path or a binary file object, got f={f!r}{hint}")


def own_copies(value: Any) -> Any:
    """``value`` with each tensor replaced by a contiguous copy in a storage of its own."""
    if isinstance(value, Tensor):
        return value.detach().contiguous().clone()
    if isinstance(value, (list, tuple)):
        return type(value)(own_copies(v) for v in value)
    return value


def capture(model: Any, args: tuple) -> tuple[Graph, list[tuple[int, ...]]]:
    """The kernel calls of ``model(*args)`` under ``no_grad`` (in eval mode) as a
    ``Graph``, and the shapes of its input tensors."""
    forward = model.forward if isinstance(model, Module) else model
    leaves, tensors = flatten_arguments(forward, args, {})
    names = [name for name, value in leaves if isinstance(value, Tensor)]
    training = isinstance(model, Module) and model.training
    if training:
        model.eval()
    try:
        recorder = Recorder(tensors, names)
        with no_grad(), dispatch.capturing(recorder):
            result = model(*args)
    except CaptureError as error:
        raise CaptureError(f"minitorch.onnx.export records one run of the model: {error}") from error
    finally:
        if training:
            model.train()
    graph = dead_code(recorder.finish(recorder.outputs(result)))
    name_buffers(graph, model)
    for buffer in graph.buffers:  # the module's own names, as in its state_dict: "0.weight"
        buffer.name = buffer.name.removeprefix("model.")
    return graph, [t.shape for t in tensors]


def initial_values(buffer: Buffer) -> Any:
    """The values a buffer starts with in the exported model: a parameter's or a
    constant's (an initializer); None for the ones the graph computes."""
    if buffer.kind == "constant" and buffer.values is not None:
        return buffer.values
    if buffer.kind in ("variable", "constant"):
        return dispatch.to_numpy(buffer.storage, buffer.device_type).copy()
    return None


def graph_names(given: Any, defaults: list[str], what: str) -> list[str]:
    """The names of the graph's inputs (outputs): the ones given, then the defaults for
    the rest (as ``torch.onnx.export``, which refuses more names than values)."""
    if isinstance(given, str):
        raise TypeError(f"{what}_names must be a list of strings, got the string {given!r}")
    given = [] if given is None else list(given)
    if len(given) > len(defaults):
        raise RuntimeError(
            f"number of {what} names provided ({len(given)}) exceeded number of {what}s ({len(defaults)})"
        )
    if not all(isinstance(name, str) and name for name in given):
        raise TypeError(f"{what}_names must be non-empty strings, got {given}")
    return given + defaults[len(given) :]


def build_model(graph: Graph, shapes: list[tuple[int, ...]], input_names: list[str] | None,
                output_names: list[str] | None, opset: int) -> onnx.ModelProto:  # fmt: skip
    """The ONNX model computing ``graph``'s outputs from its inputs. The graph's names
    are taken first, so that no value inside takes one (a given name is kept as given)."""
    specs = flatten_outputs(graph.outputs)
    defaults = ["output"] if len(specs) == 1 else [f"output{i}" for i in range(len(specs))]
    names = graph_names(input_names, list(graph.input_names), "input")
    names += graph_names(output_names, defaults, "output")
    if any(names.count(name) > 1 for name in [*(input_names or []), *(output_names or [])]):
        raise ValueError(f"the graph's input and output names must differ, got {names}")
    builder = OnnxGraphBuilder(graph.buffers, initial_values, opset)
    names = [builder.fresh(name) for name in names]  # a repeated default gets a suffix
    input_names, output_names = names[: len(graph.input_names)], names[len(graph.input_names) :]
    inputs = []
    for buffer in graph.buffers_of("input"):
        name, shape = input_names[buffer.input_index], shapes[buffer.input_index]
        builder.dtypes[name] = buffer.dtype
        inputs.append(helper.make_tensor_value_info(name, element_type(buffer.dtype), shape))
        builder.flat[buffer.index] = builder.reshape(name, [buffer.count])
    for node in graph.nodes:
        builder.prefix = node.name
        emit(builder, node)
    outputs = []
    builder.prefix = "output"
    for name, spec in zip(output_names, specs):
        builder.nodes.append(helper.make_node("Identity", [builder.read(spec.operand)], [name]))
        dtype = graph.buffers[spec.operand.buffer].dtype
        outputs.append(helper.make_tensor_value_info(name, element_type(dtype), list(spec.operand.shape)))
    onnx_graph = helper.make_graph(builder.nodes, "minitorch", inputs, outputs, builder.initializers)
    return helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", opset)],
                             producer_name="minitorch")  # fmt: skip
