"""``minitorch.onnx`` (as ``torch.onnx``): save a model's forward as an ONNX file.

    minitorch.onnx.export(model, x, "model.onnx")   # then run it with onnxruntime

``exporter.py`` tells the story (capture the forward's kernel calls, write them as ONNX);
``primitives.py`` turns each kernel call into ONNX ops, ``views.py`` each strided view,
``schemas.py`` checks the element types of each op against its ONNX schema.
The ``onnx`` package is needed only to export: it is imported on the first call.
"""

from __future__ import annotations

from typing import Any

from minitorch.onnx.errors import UnsupportedOperatorError


def export(model: Any, args: Any, f: Any, **options: Any) -> Any:
    """``torch.onnx.export``: see ``minitorch.onnx.exporter.export``."""
    from minitorch.onnx.exporter import export as export_model  # imports the optional onnx package

    return export_model(model, args, f, **options)


__all__ = ["UnsupportedOperatorError", "export"]
