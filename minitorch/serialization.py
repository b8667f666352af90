"""``minitorch.save`` and ``minitorch.load``: tensors and state dicts in the safetensors
format. Never pickle: loading a file can never run code.

PyTorch's ``torch.save`` writes a *pickle*, and unpickling can run any code the file's
author chose. A safetensors file is a JSON header (names, dtypes, shapes, byte offsets)
followed by raw tensor bytes, so reading one is only parsing. What can be saved:

* a ``Tensor``;
* a state dict, ``{name: Tensor}`` (``model.state_dict()``): saved as plain safetensors,
  so PyTorch reads it with ``safetensors.torch.load_file(path)`` and the keys fit the same
  model written in PyTorch, and minitorch reads PyTorch's ``safetensors.torch.save_file``;
* anything nested of dicts, lists and tuples holding tensors, numbers, strings, bools and
  ``None`` (an optimizer's ``state_dict()``, or ``{"model": ..., "optimizer": ...,
  "epoch": 3}``): the tensors are stored by their path (``"model.0.weight"``) and the
  structure as JSON in the header's metadata.

Tensors are saved contiguous, on the CPU; tensors that shared memory come back as
separate copies. The file is written to a temporary name first and then renamed, so a
crash never leaves half a checkpoint under the real name.

    minitorch.save(model.state_dict(), "model.safetensors")
    model.load_state_dict(minitorch.load("model.safetensors"))
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor

STRUCTURE_KEY = "minitorch.structure"  # metadata: JSON of a nested object
ORDER_KEY = "minitorch.order"  # metadata: the keys of a flat state dict, in order
SUPPORTED = {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.int32),
             np.dtype(np.bool_)}  # fmt: skip


def _safetensors() -> Any:
    try:
        import safetensors.numpy
    except ImportError as error:
        raise ModuleNotFoundError(
            'minitorch.save/load need the safetensors package: pip install "minitorch[nn]" '
            "(or pip install safetensors)"
        ) from error
    return safetensors


def _host(t: Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().copy(order="C")  # (ascontiguousarray would make 0-d 1-d)


def _is_state_dict(obj: Any) -> bool:
    return isinstance(obj, dict) and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())


def _encode(obj: Any, path: str, arrays: dict[str, np.ndarray]) -> Any:
    """JSON-able form of ``obj``; tensors go into ``arrays`` under their path."""
    if isinstance(obj, Tensor):
        name = path or "tensor"
        while name in arrays:
            name += "_"
        arrays[name] = _host(obj)
        return {"tensor": name}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, f"{path}.{i}" if path else str(i), arrays) for i, v in enumerate(obj)]
        return {"tuple": items} if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        pairs = []
        for key, value in obj.items():
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"minitorch.save: dict keys must be str or int, got {key!r}")
            pairs.append([key, _encode(value, f"{path}.{key}" if path else str(key), arrays)])
        return {"dict": pairs}
    raise TypeError(
        f"minitorch.save cannot store a {type(obj).__name__}: only tensors, numbers, strings, "
        "None and dicts/lists/tuples of them (no pickling, so no arbitrary objects)"
    )


def _decode(obj: Any, tensors: dict[str, Tensor]) -> Any:
    if isinstance(obj, list):
        return [_decode(v, tensors) for v in obj]
    if isinstance(obj, dict):
        if set(obj) == {"tensor"}:
            return tensors[obj["tensor"]]
        if set(obj) == {"tuple"}:
            return tuple(_decode(v, tensors) for v in obj["tuple"])
        if set(obj) == {"dict"}:
            return {key: _decode(value, tensors) for key, value in obj["dict"]}
        raise ValueError(f"unknown entry in the saved structure: {sorted(obj)}")
    return obj


def save(obj: Any, f: str | os.PathLike) -> None:
    """Write a tensor, a state dict, or a nested dict/list of them to ``f``
    (safetensors format)."""
    safetensors = _safetensors()
    arrays: dict[str, np.ndarray] = {}
    if _is_state_dict(obj):
        for key, value in obj.items():
            arrays[key] = _host(value)
        metadata = {"format": "pt", ORDER_KEY: json.dumps(list(obj.keys()))}
    else:
        structure = _encode(obj, "", arrays)
        metadata = {"format": "pt", STRUCTURE_KEY: json.dumps(structure)}
    target = Path(f)
    handle, temporary = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                                         prefix=f".{target.name}.", suffix=".tmp")  # fmt: skip
    os.close(handle)
    try:
        safetensors.numpy.save_file(arrays, temporary, metadata=metadata)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def _check_not_pickle(path: Path) -> None:
    """A clear message for PyTorch's own format (a zip holding a pickle, or a bare pickle)."""
    with open(path, "rb") as file:
        start = file.read(8)
    if start.startswith(b"PK\x03\x04") or start[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
        raise RuntimeError(
            f"minitorch.load: {path} looks like a PyTorch pickle file (torch.save). minitorch "
            "never unpickles: a pickle can run arbitrary code. Save it as safetensors in "
            "PyTorch instead: safetensors.torch.save_file(model.state_dict(), path)"
        )


def load(f: str | os.PathLike, map_location: Any = None, weights_only: bool = True) -> Any:
    """Read what ``save`` wrote (or any safetensors file, e.g. from
    ``safetensors.torch.save_file``). ``map_location``: a device to put the tensors on.
    A truncated or corrupt file raises a ``RuntimeError`` that says so."""
    safetensors = _safetensors()
    path = Path(f)
    if not path.is_file():
        raise FileNotFoundError(f"minitorch.load: no such file: {path}")
    try:
        with safetensors.safe_open(str(path), framework="numpy") as file:
            metadata = file.metadata() or {}
            arrays = {key: file.get_tensor(key) for key in file.keys()}
    except Exception as error:  # safetensors' own error type, or an OS error while reading
        _check_not_pickle(path)
        raise RuntimeError(
            f"minitorch.load: {path} is not a valid safetensors file; it may be truncated or "
            f"corrupt ({type(error).__name__}: {error})"
        ) from error
    tensors = {}
    for key, array in arrays.items():
        if array.dtype not in SUPPORTED:
            raise TypeError(
                f"minitorch.load: tensor {key!r} in {path} has dtype {array.dtype}, which "
                "minitorch does not have (float32, float64, int64, int32, bool); convert it "
                "before saving"
            )
        tensor = creation.tensor(np.array(array))
        tensors[key] = tensor.to(map_location) if map_location is not None else tensor
    try:
        if STRUCTURE_KEY in metadata:
            return _decode(json.loads(metadata[STRUCTURE_KEY]), tensors)
        order = json.loads(metadata[ORDER_KEY]) if ORDER_KEY in metadata else sorted(tensors)
        if sorted(order) != sorted(tensors):
            raise ValueError("the saved key order does not match the tensors in the file")
        return OrderedDict((key, tensors[key]) for key in order)
    except (ValueError, KeyError, TypeError) as error:
        raise RuntimeError(f"minitorch.load: {path} has corrupt minitorch metadata ({error})") from error
