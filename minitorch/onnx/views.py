"""Strided views in ONNX: the values of a captured graph's buffers, read and written.

A captured ``Graph`` (``minitorch/compiler/graph.py``) works on flat buffers, and every
kernel reads and writes *views* of them: ``Operand(buffer, shape, strides, offset)``.
ONNX has no strides: its tensors are values, each with a shape. So the builder keeps, for
every buffer, the name of the ONNX value that holds its elements *now*, as a 1-D tensor
(``flat``), and turns each view into the cheapest exact sequence of ONNX ops:

=================================== ================================================
the view                            ONNX
=================================== ================================================
the whole buffer, in order          ``Reshape(flat, shape)``
a contiguous run (a row slice)      ``Slice`` then ``Reshape``
the whole buffer, dims permuted     ``Reshape`` to the sorted shape, ``Transpose``
stride 0 along some dims            read the view with those dims of size 1, ``Expand``
anything else (im2col windows...)   ``Gather(flat, positions)``
=================================== ================================================

where ``positions`` is a constant int64 tensor of the view's shape holding each
element's storage position, ``offset + sum_d index[d] * strides[d]`` (what
``index_to_position`` in ``minitorch/layout.py`` computes for one element). The last
row is always correct; the others are the same values with less work for the runtime.
Every ``Reshape`` has ``allowzero=1``: without it ONNX reads a 0 in the shape as "keep
this dimension of the input", and a buffer of 0 elements would keep its old shape.

A kernel writing the whole buffer in order makes that buffer's new value (read back in
the same shape, it is used as it is: no op); a partial
write (the padded interior of a convolution's input) scatters into the old one:
``ScatterND(flat, positions[..., None], value)``. A buffer read before anything wrote
it is zeros, as ``dispatch.empty`` allocates them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from minitorch.compiler.graph import Buffer, Operand
from minitorch.layout import numel
from minitorch.onnx.schemas import output_dtype


def element_type(dtype: np.dtype) -> int:
    """ONNX's number for a NumPy dtype (``TensorProto.FLOAT`` for float32)."""
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def positions(view: Operand) -> np.ndarray:
    """The storage position of every element of ``view``, as an int64 array of its shape."""
    result = np.full(view.shape, view.offset, dtype=np.int64)
    for dim, (size, stride) in enumerate(zip(view.shape, view.strides)):
        along = np.arange(size, dtype=np.int64) * stride
        result += along.reshape([size if d == dim else 1 for d in range(len(view.shape))])
    return result


def permutation_of(view: Operand, count: int) -> list[int] | None:
    """If ``view`` is the whole buffer of ``count`` elements with its dimensions in some
    other order, the order: ``sorted_dims`` such that the buffer, reshaped to the sizes
    of those dims, is the view after a transpose. Else None."""
    if view.offset != 0 or numel(view.shape) != count:
        return None
    dims = [d for d, size in enumerate(view.shape) if size != 1]
    sorted_dims = sorted(dims, key=lambda d: -view.strides[d])
    expected = 1
    for d in reversed(sorted_dims):
        if view.strides[d] != expected:
            return None
        expected *= view.shape[d]
    return sorted_dims


class OnnxGraphBuilder:
    """Collects ONNX nodes and initializers, and the current value of every buffer."""

    def __init__(self, buffers: list[Buffer], initial_values: Any, opset: int) -> None:
        self.buffers = buffers
        self.initial_values = initial_values  # buffer -> its flat NumPy values (or None)
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.flat: dict[int, str] = {}  # buffer -> the ONNX value holding its elements now
        # buffer -> (shape, value) when a kernel last wrote all of it in order: reading it
        # back in that shape needs no op at all
        self.whole: dict[int, tuple[tuple[int, ...], str]] = {}
        self.dtypes: dict[str, np.dtype] = {}  # ONNX value -> its element type
        self._shared: dict[tuple[str, tuple[int, ...], bytes], str] = {}
        self._names: set[str] = set()
        self.prefix = "v"  # names of new values start so (the exporter sets the node's name)

    # ----- names, ops and constants -----------------------------------------------------

    def fresh(self, hint: str) -> str:
        name, n = hint, 1
        while name in self._names:
            name, n = f"{hint}_{n}", n + 1
        self._names.add(name)
        return name

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        """Add one ONNX node; return the name of its (single) output. Its inputs' element
        types are checked against the op's schema first (``schemas.py``)."""
        dtype = output_dtype(op_type, self.opset, [self.dtypes[i] for i in inputs], attributes)
        output = self.fresh(f"{self.prefix}_{op_type}")
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], **attributes))
        self.dtypes[output] = dtype
        return output

    def reshape(self, value: str, shape: list[int] | tuple[int, ...]) -> str:
        """``value`` with that shape. ``allowzero=1``: a 0 in the shape is a size of zero,
        not ONNX's default "copy this dimension from the input"."""
        return self.op("Reshape", value, self.ints(shape), allowzero=1)

    def constant(self, array: Any, hint: str = "const") -> str:
        """A constant tensor, stored as an initializer."""
        array = np.asarray(array)
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(array, name))
        self.dtypes[name] = array.dtype
        return name

    def shared(self, array: Any, hint: str = "const") -> str:
        """A constant made once per value: two arrays share it when their dtype, their
        shape and their bytes are the same (``1`` and ``[1]`` are two constants)."""
        array = np.asarray(array)
        key = (array.dtype.str, array.shape, array.tobytes())  # tobytes: in C order
        if key not in self._shared:
            self._shared[key] = self.constant(array, hint)
        return self._shared[key]

    def ints(self, values: list[int] | tuple[int, ...] | int) -> str:
        """An int64 constant (shapes, axes, slice bounds): a list gives a 1-D tensor, an
        int a 0-d one."""
        return self.shared(np.asarray(values, dtype=np.int64), "ints")

    def cast(self, name: str, source: np.dtype, target: np.dtype) -> str:
        if np.dtype(source) == np.dtype(target):
            return name
        return self.op("Cast", name, to=element_type(target))

    # ----- buffers ------------------------------------------------------------------------

    def value_of(self, index: int) -> str:
        """The flat value of buffer ``index`` now: its initializer (parameters and
        constants) or zeros the first time it is read."""
        if index not in self.flat and index in self.whole:
            count = self.buffers[index].count
            self.flat[index] = self.reshape(self.whole[index][1], [count])
        if index not in self.flat:
            buffer = self.buffers[index]
            values = self.initial_values(buffer)
            if values is not None:
                hint = buffer.name or f"b{index}"
                self.flat[index] = self.constant(np.asarray(values, buffer.dtype).reshape(-1), hint)
            else:
                zero = numpy_helper.from_array(np.zeros(1, buffer.dtype))
                self.flat[index] = self.op("ConstantOfShape", self.ints([buffer.count]), value=zero)
        return self.flat[index]

    def read(self, view: Operand) -> str:
        """The elements of ``view``, as an ONNX tensor of its shape (the module's table)."""
        buffer = self.buffers[view.buffer]
        shape = list(view.shape)
        if numel(shape) == 0:
            return self.shared(np.zeros(shape, buffer.dtype), "empty")
        stretched = [d for d, size in enumerate(shape) if size > 1 and view.strides[d] == 0]
        if stretched:
            narrow = tuple(1 if d in stretched else size for d, size in enumerate(shape))
            return self.op("Expand", self.read(Operand(view.buffer, narrow, view.strides, view.offset)),
                           self.ints(shape))  # fmt: skip
        if view.covers(buffer.count) and view.buffer in self.whole:
            written_shape, value = self.whole[view.buffer]
            return value if written_shape == view.shape else self.reshape(value, shape)
        flat = self.value_of(view.buffer)
        if view.covers(buffer.count):
            return self.reshape(flat, shape)
        count = numel(shape)
        if Operand(view.buffer, view.shape, view.strides, 0).covers(count):  # a contiguous run
            run = self.op("Slice", flat, self.ints([view.offset]), self.ints([view.offset + count]))
            return self.reshape(run, shape)
        order = permutation_of(view, buffer.count)
        if order is not None:
            sorted_shape = [shape[d] for d in order]
            moved = self.op("Transpose", self.reshape(flat, sorted_shape),
                            perm=[order.index(d) for d in sorted(order)])  # fmt: skip
            return self.reshape(moved, shape)
        where = positions(view)
        if buffer.count < 2**31:  # Gather takes int32 indices too: half the bytes in the file
            where = where.astype(np.int32)
        return self.op("Gather", flat, self.constant(where, "positions"))

    def write(self, view: Operand, value: str) -> None:
        """``view`` of its buffer now holds ``value`` (an ONNX tensor of the view's shape)."""
        buffer = self.buffers[view.buffer]
        if numel(view.shape) == 0:
            return
        if view.covers(buffer.count):
            self.whole[view.buffer] = (view.shape, value)
            self.flat.pop(view.buffer, None)  # made from ``value`` if someone needs it
            return
        where = self.constant(positions(view)[..., None], "positions")
        self.flat[view.buffer] = self.op("ScatterND", self.value_of(view.buffer), where, value)
        self.whole.pop(view.buffer, None)
