"""The element types each ONNX op takes, checked as the model is built.

Every ONNX op has a *schema* (``onnx.defs.get_schema``): its inputs and outputs, each with
a type variable, and for each variable the element types allowed. ``Add`` says
``A: T, B: T -> C: T`` with ``T`` in ``{uint8, ..., float, double}`` (no ``bool``);
``Equal`` says ``A: T, B: T -> C: T1`` with ``T1 = {bool}``. So the type of every value
follows from its inputs'::

    bind each input's element type to its variable (the same variable: the same type)
    the output's type is its variable's binding, or the one type its variable allows

(``Cast`` and ``ConstantOfShape`` have their output type in an attribute). The builder
(``views.py``) runs this for every op it adds: a kernel whose translation needs an op on a
type ONNX does not define (``Add`` on booleans) is refused while exporting, with the op
and the types named, instead of the ONNX checker failing on the finished model.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from onnx import TensorProto, defs, helper


class UnsupportedTypeError(Exception):
    """An ONNX op was asked to work on an element type its schema does not allow."""


def type_string(dtype: np.dtype) -> str:
    """The schema's name of a NumPy dtype: ``tensor(float)`` for float32."""
    name = TensorProto.DataType.Name(helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))
    return f"tensor({name.lower()})"


@cache
def signature(op_type: str, opset: int) -> tuple[list[tuple[str, bool]], str, dict[str, tuple[str, ...]]]:
    """``op_type``'s schema in ``opset``: its inputs as (type variable, variadic), its
    output's type variable, and the types each variable allows."""
    schema = defs.get_schema(op_type, opset)
    inputs = [(p.type_str, p.option == defs.OpSchema.FormalParameterOption.Variadic) for p in schema.inputs]
    allowed = {c.type_param_str: tuple(c.allowed_type_strs) for c in schema.type_constraints}
    return inputs, schema.outputs[0].type_str, allowed


def output_dtype(op_type: str, opset: int, inputs: list[np.dtype], attributes: dict[str, Any]) -> np.dtype:
    """The element type of ``op_type``'s output on inputs of these types; raises
    ``UnsupportedTypeError`` if the schema does not allow them."""
    formal, output, allowed = signature(op_type, opset)
    bound: dict[str, np.dtype] = {}
    for i, dtype in enumerate(inputs):
        variable = formal[min(i, len(formal) - 1)][0]  # a variadic input takes the rest
        choices = allowed.get(variable, (variable,))
        if type_string(dtype) not in choices:
            names = ", ".join(choice.removeprefix("tensor(").removesuffix(")") for choice in choices)
            raise UnsupportedTypeError(
                f"ONNX {op_type} (opset {opset}) does not take {np.dtype(dtype).name} (it takes {names})"
            )
        if bound.setdefault(variable, np.dtype(dtype)) != np.dtype(dtype):
            raise UnsupportedTypeError(
                f"ONNX {op_type} takes one element type for {variable}, got {bound[variable].name} "
                f"and {np.dtype(dtype).name}"
            )
    if op_type == "Cast":
        return helper.tensor_dtype_to_np_dtype(attributes["to"])
    if op_type == "ConstantOfShape":
        return helper.tensor_dtype_to_np_dtype(attributes["value"].data_type)
    if output in bound:
        return bound[output]
    (only,) = allowed.get(output, (output,))
    return helper.tensor_dtype_to_np_dtype(getattr(TensorProto, only[len("tensor(") : -1].upper()))
