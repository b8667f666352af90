"""MNIST from the standard IDX files in a local folder (nothing is downloaded).

The IDX format (LeCun's) is a tiny header and then raw bytes::

    bytes 0-1   zero
    byte  2     element type: 0x08 unsigned byte (0x09 signed byte, 0x0B int16,
                0x0C int32, 0x0D float32, 0x0E float64), all big-endian
    byte  3     number of dimensions d
    then        d sizes, 4-byte big-endian unsigned integers
    then        the elements, row-major

``read_idx(path)`` parses one file (plain or ``.gz``), checking every part of it so a
truncated or corrupt file gives a clear error, never garbage. ``MNIST(root)`` finds the
four files (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``,
``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``, optionally ``.gz``) in ``root``
or ``root/MNIST/raw`` (torchvision's layout).
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

from minitorch import creation
from minitorch.dtypes import float32, int64
from minitorch.utils.data.dataset import TensorDataset

IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """The array stored in one IDX file."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as file:
            raw = file.read()
    except (OSError, EOFError) as error:  # gzip raises these for damaged archives
        if isinstance(error, FileNotFoundError):
            raise
        raise ValueError(f"{path}: cannot read the file ({error})") from error
    if len(raw) < 4:
        raise ValueError(f"{path}: not an IDX file: {len(raw)} bytes, shorter than the 4-byte "
                         "magic number")  # fmt: skip
    zero, code, ndim = int.from_bytes(raw[0:2], "big"), raw[2], raw[3]
    if zero != 0 or code not in IDX_TYPES or ndim == 0:
        raise ValueError(
            f"{path}: not an IDX file: magic number {raw[:4].hex()} (expected 0000 then a type "
            f"code in {[hex(c) for c in IDX_TYPES]} and a dimension count >= 1)"
        )
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: truncated IDX header: {ndim} dimensions need {header} bytes, "
                         f"the file has {len(raw)}")  # fmt: skip
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    dtype = np.dtype(IDX_TYPES[code])
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    found = len(raw) - header
    if found != expected:
        problem = "truncated" if found < expected else "has extra bytes"
        raise ValueError(f"{path}: {problem}: shape {list(shape)} needs {expected} bytes of data "
                         f"after the header, found {found}")  # fmt: skip
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def _find(root: Path, name: str) -> Path:
    for folder in (root, root / "MNIST" / "raw", root / "raw"):
        for candidate in (folder / name, folder / (name + ".gz")):
            if candidate.is_file():
                return candidate
    raise FileNotFoundError(
        f"MNIST file {name} (or {name}.gz) not found in {root} or {root / 'MNIST' / 'raw'}. "
        "minitorch does not download datasets: put the four IDX files there."
    )


class MNIST(TensorDataset):
    """MNIST as a dataset: ``data`` ``[n, 1, 28, 28]`` float32 in ``[0, 1]`` (or
    ``[n, 784]`` with ``flatten=True``) and ``targets`` ``[n]`` int64 (0-9)."""

    classes = list(range(10))

    def __init__(self, root: str | os.PathLike, train: bool = True, flatten: bool = False) -> None:
        root = Path(root)
        prefix = "train" if train else "t10k"
        image_file = _find(root, f"{prefix}-images-idx3-ubyte")
        label_file = _find(root, f"{prefix}-labels-idx1-ubyte")
        images, labels = read_idx(image_file), read_idx(label_file)
        if images.ndim != 3:
            raise ValueError(f"{image_file}: expected 3 dimensions [n, rows, cols], got {list(images.shape)}")
        if labels.ndim != 1:
            raise ValueError(f"{label_file}: expected 1 dimension [n], got {list(labels.shape)}")
        if len(images) != len(labels):
            raise ValueError(f"{image_file} has {len(images)} images but {label_file} has "
                             f"{len(labels)} labels")  # fmt: skip
        if labels.size and (labels.min() < 0 or labels.max() > 9):
            raise ValueError(f"{label_file}: labels must be digits 0-9, found {int(labels.max())}")
        n, rows, cols = images.shape
        pixels = images.astype(np.float32) / (255.0 if images.dtype == np.uint8 else 1.0)
        pixels = pixels.reshape(n, rows * cols) if flatten else pixels.reshape(n, 1, rows, cols)
        self.data = creation.tensor(np.ascontiguousarray(pixels), dtype=float32)
        self.targets = creation.tensor(labels.astype(np.int64), dtype=int64)
        self.train = train
        super().__init__(self.data, self.targets)

    def __repr__(self) -> str:
        split = "train" if self.train else "test"
        return f"MNIST({split}: {len(self)} images of shape {list(self.data.shape[1:])})"
