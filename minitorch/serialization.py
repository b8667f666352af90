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
separate copies. ``f`` is a path or an open binary file (``io.BytesIO``, ``open(p, "wb")``),
as in PyTorch.

Writing a path is atomic: the bytes go to a new ``.<name>.<random>.minitorch-tmp``
beside the target, which is then renamed over it, so a crash never leaves half a
checkpoint under the real name, and saves racing to one path (two threads, two
processes) each write their own temporary file: the last rename wins, whole. A save
holds a lock on its temporary file until the rename (``flock``, where the system has
it; the lock ends with the process), so the next save to the path removes the orphans
of killed saves, the unlocked ones, and never a save still in progress. Like
``open(path, "wb")`` in PyTorch, the new file gets the mode the umask allows (0644
under umask 022), an existing file keeps its mode, and a symlink is written through (the
link stays, its target changes). Only a regular file is ever replaced: a directory is an
``IsADirectoryError``, and a FIFO or a device (``/dev/null``, ``/dev/stdout``) is opened
and written into, as ``torch.save`` does.

The format reserves the key ``__metadata__`` (the header's own metadata): a state dict
with a tensor of that name is refused before anything is written.

Reading checks the format's rules before trusting a byte: the header must start with
``{``, may be padded with trailing spaces (0x20) only, and has no duplicate keys; data
offsets must cover the data exactly (checked by the safetensors package). Any damaged
file (truncated, a wrong header length, bad JSON, offsets outside the data, an unknown
dtype code, a shape no tensor can have) is a ``RuntimeError`` that names the file. Every
minitorch dtype has its safetensors code (``F32``, ``BF16``, ``U8``...: ``DTYPES``), so a
tensor comes back with the dtype it was saved with.

    minitorch.save(model.state_dict(), "model.safetensors")
    model.load_state_dict(minitorch.load("model.safetensors"))
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import stat
from collections import OrderedDict
from pathlib import Path
from typing import IO, Any

import numpy as np

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import ALL_DTYPES, bfloat16

try:
    import fcntl  # flock: POSIX systems
except ImportError:  # pragma: no cover (Windows: no locks, so orphans are left in place)
    fcntl = None

STRUCTURE_KEY = "minitorch.structure"  # metadata: JSON of a nested object
ORDER_KEY = "minitorch.order"  # metadata: the keys of a flat state dict, in order
METADATA_KEY = "__metadata__"  # the header's metadata; reserved by the format
TEMPORARY_SUFFIX = ".minitorch-tmp"  # a write in progress: .<name>.<random>.minitorch-tmp
MAX_DEPTH = 100  # nesting of saved structures (an optimizer state dict is about 5 deep)
MAX_HEADER = 100 * 2**20  # bytes; the safetensors package has the same limit
# safetensors dtype code -> the minitorch dtype whose storage cells hold those bytes
# (little-endian; a bfloat16's cells are its 16-bit words)
CODES = ("BOOL", "U8", "I8", "I16", "I32", "I64", "F16", "BF16", "F32", "F64")
DTYPES = dict(zip(CODES, ALL_DTYPES, strict=True))
CODE_OF = {d: code for code, d in DTYPES.items()}


def _safetensors() -> Any:
    try:
        import safetensors
    except ImportError as error:
        raise ModuleNotFoundError(
            "minitorch.load needs the safetensors package (it checks each file before we "
            "read it), a dependency of minitorch "
            "that is missing here: pip install safetensors"
        ) from error
    return safetensors


def _host(t: Tensor) -> np.ndarray:
    """A copy of ``t``'s storage cells on the host, contiguous and little-endian."""
    values = t.detach().cpu()
    host = values.float().numpy() if t.dtype is bfloat16 else values.numpy()  # (exact)
    cells = t.dtype.encode(host)
    return cells.astype(cells.dtype.newbyteorder("<"), order="C")  # a copy, 0-d stays 0-d


def _serialize(tensors: dict[str, Tensor], metadata: dict[str, str]) -> bytes:
    """The safetensors layout: the header's length (8 bytes, little-endian), the JSON
    header (each tensor's dtype code, shape and byte range; the metadata), then the bytes
    of every tensor one after another. The header is padded with spaces to a multiple
    of 8 bytes, so the data starts aligned, as the format's own writer does."""
    header: dict[str, Any] = {METADATA_KEY: metadata}
    chunks, start = [], 0
    for name, t in tensors.items():
        cells = _host(t)
        end = start + cells.nbytes
        header[name] = {"dtype": CODE_OF[t.dtype], "shape": list(cells.shape), "data_offsets": [start, end]}
        chunks.append(cells.tobytes())
        start = end
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def _is_state_dict(obj: Any) -> bool:
    return isinstance(obj, dict) and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items())


def _encode(obj: Any, path: str, tensors: dict[str, Tensor], depth: int = 0) -> Any:
    """JSON-able form of ``obj``; tensors go into ``tensors`` under their path."""
    if depth > MAX_DEPTH:
        raise ValueError(f"minitorch.save: the object is nested more than {MAX_DEPTH} levels deep ({path!r})")
    if isinstance(obj, Tensor):
        name = path or "tensor"
        while name in tensors or name == METADATA_KEY:  # (names in a structure are ours to choose)
            name += "_"
        tensors[name] = obj
        return {"tensor": name}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, f"{path}.{i}" if path else str(i), tensors, depth + 1) for i, v in enumerate(obj)]
        return {"tuple": items} if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        pairs = []
        for key, value in obj.items():
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise TypeError(f"minitorch.save: dict keys must be str or int, got {key!r}")
            pairs.append([key, _encode(value, f"{path}.{key}" if path else str(key), tensors, depth + 1)])
        return {"dict": pairs}
    raise TypeError(
        f"minitorch.save cannot store a {type(obj).__name__}: only tensors, numbers, strings, "
        "None and dicts/lists/tuples of them (no pickling, so no arbitrary objects)"
    )


def _decode(obj: Any, tensors: dict[str, Tensor], depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise ValueError(f"the saved structure is nested more than {MAX_DEPTH} levels deep")
    if isinstance(obj, list):
        return [_decode(v, tensors, depth + 1) for v in obj]
    if isinstance(obj, dict):
        if set(obj) == {"tensor"}:
            return tensors[obj["tensor"]]
        if set(obj) == {"tuple"}:
            return tuple(_decode(v, tensors, depth + 1) for v in obj["tuple"])
        if set(obj) == {"dict"}:
            return {key: _decode(value, tensors, depth + 1) for key, value in obj["dict"]}
        raise ValueError(f"unknown entry in the saved structure: {sorted(obj)}")
    return obj


def _is_file(f: Any) -> bool:
    return not isinstance(f, (str, os.PathLike)) and (hasattr(f, "write") or hasattr(f, "read"))


def _check_path(f: Any, name: str) -> Path:
    if not isinstance(f, (str, os.PathLike)):
        raise TypeError(f"minitorch.{name}: f must be a path or a binary file object, got {type(f).__name__}")
    return Path(f)


def _lock(handle: int, wait: bool) -> bool:
    """Take the exclusive lock on an open file; without ``wait``, False if someone holds it."""
    if fcntl is None:
        return wait
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


def _remove_orphans(target: Path) -> None:
    """Remove the temporary files of killed saves to ``target``: the ones nobody locks."""
    pattern = f".{glob.escape(target.name)}.*{TEMPORARY_SUFFIX}"
    for orphan in target.parent.glob(pattern):
        try:  # (O_NONBLOCK: a FIFO of that name does not wait for a writer)
            handle = os.open(orphan, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue  # gone already, or a link: never followed
        try:
            if stat.S_ISREG(os.fstat(handle).st_mode) and _lock(handle, wait=False):
                orphan.unlink(missing_ok=True)
        finally:
            os.close(handle)


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new temporary file beside ``target``, open and locked: a name no one else has
    (``O_EXCL``), and still ours once locked (a cleaning save may have removed it just
    before: then another name)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    while True:
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}{TEMPORARY_SUFFIX}")
        try:
            handle = os.open(temporary, flags, 0o666)  # the umask decides the mode, as for open(f, "wb")
        except FileExistsError:
            continue
        _lock(handle, wait=True)
        try:
            if os.path.samestat(os.stat(temporary, follow_symlinks=False), os.fstat(handle)):
                return handle, temporary
        except FileNotFoundError:
            pass
        os.close(handle)


def _write_atomically(data: bytes, f: str | os.PathLike) -> None:
    """``data`` into the file ``f`` through a temporary file and a rename::

        target = f with its symlinks resolved          (the link stays, its target changes)
        a directory: IsADirectoryError
        a FIFO, a device, a socket: open it and write data into it    (never replaced)
        otherwise:
            remove the orphans of killed saves to target (unlocked temporary files)
            temporary = a new, locked .<name>.<random>.minitorch-tmp beside target
            write data to temporary; give it target's mode if target exists
            rename temporary -> target, then unlock       (atomic: old or new, never half)
    """
    target = Path(os.path.realpath(f))
    if target.is_dir():
        raise IsADirectoryError(f"minitorch.save: {f} is a directory, not a file")
    if target.exists() and not target.is_file():
        with open(target, "wb") as file:  # as torch.save does: /dev/null stays /dev/null
            file.write(data)
        return
    _remove_orphans(target)
    handle, temporary = _create_temporary(target)
    try:
        with os.fdopen(handle, "wb") as file:  # (closing it ends the lock: after the rename)
            file.write(data)
            if target.exists():
                os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
            os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def save(obj: Any, f: str | os.PathLike | IO[bytes]) -> None:
    """Write a tensor, a state dict, or a nested dict/list of them to ``f`` (a path or a
    binary file object), in the safetensors format."""
    if not _is_file(f):
        _check_path(f, "save")
    tensors: dict[str, Tensor] = {}
    if _is_state_dict(obj):
        if METADATA_KEY in obj:
            raise ValueError(
                f"minitorch.save: the key {METADATA_KEY!r} is reserved by the safetensors format "
                "(it holds the file's metadata), so no tensor can have that name: rename it"
            )
        tensors.update(obj)
        metadata = {"format": "pt", ORDER_KEY: json.dumps(list(obj.keys()))}
    else:
        structure = _encode(obj, "", tensors)
        metadata = {"format": "pt", STRUCTURE_KEY: json.dumps(structure)}
    data = _serialize(tensors, metadata)
    if _is_file(f):
        f.write(data)
    else:
        _write_atomically(data, f)


def _check_not_pickle(start: bytes, name: str) -> None:
    """A clear message for PyTorch's own format (a zip holding a pickle, or a bare pickle)."""
    if start.startswith(b"PK\x03\x04") or start[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
        raise RuntimeError(
            f"minitorch.load: {name} looks like a PyTorch pickle file (torch.save). minitorch "
            "never unpickles: a pickle can run arbitrary code. Save it as safetensors in "
            "PyTorch instead: safetensors.torch.save_file(model.state_dict(), path)"
        )


def _no_duplicates(pairs: list) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        duplicated = sorted({key for key in keys if keys.count(key) > 1})
        raise ValueError(f"duplicate keys in the header: {duplicated} (the format forbids them)")
    return dict(pairs)


def _read_header(data: bytes) -> dict:
    """The JSON header, after the format's own rules (the safetensors package is lenient
    about them): starts with ``{``, only spaces after the closing ``}``, no duplicate keys."""
    if len(data) < 8:
        raise ValueError(f"the file has {len(data)} bytes, fewer than the 8 of the header length")
    length = int.from_bytes(data[:8], "little")
    if length > min(MAX_HEADER, len(data) - 8):
        raise ValueError(f"the header length {length} is larger than the file or the {MAX_HEADER}-byte limit")
    header = data[8 : 8 + length]
    if not header.startswith(b"{") or not header.rstrip(b" ").endswith(b"}"):
        raise ValueError("the header must start with '{' and may only be padded with spaces after its '}'")
    try:
        parsed = json.loads(header.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise ValueError("the header is nested too deeply to be a safetensors header") from None
    if not isinstance(parsed, dict):
        raise ValueError("the header is not a JSON object")
    return parsed


def _tensors(entries: list, name: str) -> dict[str, Tensor]:
    """Tensors from ``safetensors.deserialize``'s ``(key, {dtype, shape, data})`` list."""
    tensors = {}
    for key, entry in entries:
        if entry["dtype"] not in DTYPES:
            raise TypeError(
                f"minitorch.load: tensor {key!r} in {name} has dtype {entry['dtype']}, which "
                f"minitorch does not have (it has {', '.join(DTYPES)}); convert it before saving"
            )
        d = DTYPES[entry["dtype"]]
        try:
            cells = np.frombuffer(bytes(entry["data"]), d.numpy.newbyteorder("<")).reshape(entry["shape"])
            tensors[key] = creation.tensor(d.decode(cells), dtype=d)  # (bfloat16: words -> values -> words)
        except (ValueError, TypeError, OverflowError, MemoryError) as error:  # e.g. shape [0, 2**62]
            raise RuntimeError(
                f"minitorch.load: tensor {key!r} in {name} has shape {entry['shape']}, which no "
                f"tensor can have; the file may be corrupt ({type(error).__name__}: {error})"
            ) from error
    return tensors


def load(f: str | os.PathLike | IO[bytes], map_location: Any = None, weights_only: bool = True) -> Any:
    """Read what ``save`` wrote (or any safetensors file, e.g. from
    ``safetensors.torch.save_file``) from a path or a binary file object.
    ``map_location``: a device to put the tensors on. A truncated or corrupt file raises a
    ``RuntimeError`` that says so."""
    safetensors = _safetensors()
    if _is_file(f):
        data, name = f.read(), getattr(f, "name", "the file object")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"minitorch.load: {name} is open in text mode; open it in binary mode ('rb')")
        data = bytes(data)
    else:
        path = _check_path(f, "load")
        if path.is_dir():
            raise IsADirectoryError(f"minitorch.load: {path} is a directory, not a file")
        if not path.exists():
            raise FileNotFoundError(f"minitorch.load: no such file: {path}")
        data, name = path.read_bytes(), str(path)  # (a FIFO is read to its end, as by torch.load)
    try:
        metadata = _read_header(data).get(METADATA_KEY) or {}
        entries = safetensors.deserialize(data)  # checks dtypes, shapes and data offsets
    except Exception as error:  # a format rule above, or the safetensors package's own error
        _check_not_pickle(data[:8], name)
        raise RuntimeError(
            f"minitorch.load: {name} is not a valid safetensors file; it may be truncated or "
            f"corrupt ({type(error).__name__}: {error})"
        ) from error
    tensors = {}
    for key, tensor in _tensors(entries, name).items():
        tensors[key] = tensor.to(map_location) if map_location is not None else tensor
    try:
        if STRUCTURE_KEY in metadata:
            return _decode(json.loads(metadata[STRUCTURE_KEY]), tensors)
        order = json.loads(metadata[ORDER_KEY]) if ORDER_KEY in metadata else sorted(tensors)
        if sorted(order) != sorted(tensors):
            raise ValueError("the saved key order does not match the tensors in the file")
        return OrderedDict((key, tensors[key]) for key in order)
    except (ValueError, KeyError, TypeError, RecursionError) as error:  # RecursionError: json.loads
        problem = "nested too deep" if isinstance(error, RecursionError) else error
        raise RuntimeError(f"minitorch.load: {name} has corrupt minitorch metadata ({problem})") from None
