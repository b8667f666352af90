"""The error the ONNX exporter raises for a kernel it cannot write as ONNX."""


class UnsupportedOperatorError(RuntimeError):
    """A kernel call of the model has no ONNX translation (``torch.onnx.errors`` has the
    same name). The message names the op and the primitive."""
