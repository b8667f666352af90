"""``minitorch.save``/``load`` against hostile paths and files (issue 29): special files
are written into, never replaced; saves racing to one path all succeed; the format's
reserved key is refused before writing; every damaged file is a ``RuntimeError`` that
names it (PyTorch raises ``RuntimeError`` for corrupt files too)."""

from __future__ import annotations

import json
import os
import re
import stat
import threading

import numpy as np
import pytest

import minitorch as mt


def read_all(handle: int) -> bytes:
    """Everything in a FIFO whose writer has come and gone (what it left in the pipe)."""
    chunks = []
    while chunk := os.read(handle, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("through_a_link", [False, True])
def test_a_fifo_is_written_into_not_replaced(tmp_path, through_a_link):
    """As ``torch.save`` (``open(path, "wb")``): the bytes go into the FIFO. The reading end
    is opened first, without blocking, and the file is small enough for the pipe's buffer,
    so the save never waits and the test cannot hang."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    path = fifo
    if through_a_link:
        path = tmp_path / "link"
        path.symlink_to(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mt.save(mt.arange(10.0), path)
        data = read_all(reader)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO
    assert path.is_symlink() == through_a_link
    (tmp_path / "copy.safetensors").write_bytes(data)
    assert np.array_equal(mt.load(tmp_path / "copy.safetensors").numpy(), np.arange(10.0, dtype=np.float32))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"pipe", path.name, "copy.safetensors"})


def test_load_reads_a_fifo_and_refuses_a_directory(tmp_path):
    """``torch.load`` reads a FIFO to its end: here a thread saves into one while the test
    loads from it. Should load not open it, the reading end opened last releases the
    writer, so the test cannot hang."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=mt.save, args=(mt.arange(5.0), fifo), daemon=True)
    writer.start()
    try:
        loaded = mt.load(fifo)
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # (a writer still waiting to open)
        writer.join(timeout=60)
    assert not writer.is_alive()
    assert np.array_equal(loaded.numpy(), np.arange(5.0, dtype=np.float32))
    with pytest.raises(IsADirectoryError, match="is a directory"):
        mt.load(tmp_path)


def test_a_directory_is_refused_and_left_alone(tmp_path):
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "inside").write_bytes(b"kept")
    link = tmp_path / "link"
    link.symlink_to(folder)
    for path in (folder, link):
        with pytest.raises(IsADirectoryError, match="is a directory"):
            mt.save(mt.ones(2), path)
    assert [p.name for p in folder.iterdir()] == ["inside"] and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoints", "link"]


def test_concurrent_saves_to_one_path_all_succeed(tmp_path):
    target = tmp_path / "m.safetensors"
    values = [np.full(2**16, i, np.float32) for i in range(6)]
    start, errors = threading.Barrier(len(values)), []

    def save_repeatedly(value: np.ndarray) -> None:
        start.wait(timeout=60)
        try:
            for _ in range(5):
                mt.save(mt.tensor(value), target)
        except Exception as error:  # noqa: BLE001 (reported by the assertion below)
            errors.append(error)

    threads = [threading.Thread(target=save_repeatedly, args=(v,)) for v in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and not any(thread.is_alive() for thread in threads), errors
    loaded = mt.load(target).numpy()
    assert any(np.array_equal(loaded, value) for value in values)
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]  # no temporary file left


@pytest.mark.parametrize("name", [".m.safetensors.minitorch-tmp", ".m.safetensors.0123.minitorch-tmp"])
def test_a_directory_named_like_a_temporary_file_blocks_nothing(tmp_path, name):
    (tmp_path / name).mkdir()
    for value in (mt.zeros(2), mt.ones(3)):
        mt.save(value, tmp_path / "m.safetensors")
        assert np.array_equal(mt.load(tmp_path / "m.safetensors").numpy(), value.numpy())
    assert (tmp_path / name).is_dir()


def test_the_reserved_metadata_key_is_refused_before_writing(tmp_path):
    with pytest.raises(ValueError, match="'__metadata__' is reserved"):
        mt.save({"__metadata__": mt.ones(2), "w": mt.zeros(1)}, tmp_path / "m.safetensors")
    assert not list(tmp_path.iterdir())
    nested = {"__metadata__": mt.ones(2), "epoch": 3}  # a structure's tensor names are our own
    mt.save(nested, tmp_path / "n.safetensors")
    loaded = mt.load(tmp_path / "n.safetensors")
    assert loaded["epoch"] == 3 and np.array_equal(loaded["__metadata__"].numpy(), [1.0, 1.0])


def with_header(header: bytes | dict, data: bytes = b"", length: int | None = None) -> bytes:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return (len(text) if length is None else length).to_bytes(8, "little") + text + data


def entry(dtype: str = "F32", shape: list | None = None, offsets: list | None = None) -> dict:
    return {"a": {"dtype": dtype, "shape": [2] if shape is None else shape,
                  "data_offsets": [0, 8] if offsets is None else offsets}}  # fmt: skip


EIGHT_BYTES = np.arange(2, dtype=np.float32).tobytes()
GOOD = with_header(entry(), EIGHT_BYTES)
DAMAGED = {
    "empty": b"",
    "truncated length": GOOD[:5],
    "truncated header": GOOD[:20],
    "truncated data": GOOD[:-3],
    "header length too large": with_header(entry(), EIGHT_BYTES, length=len(GOOD)),
    "header length too small": with_header(entry(), EIGHT_BYTES, length=10),
    "header length zero": with_header(entry(), EIGHT_BYTES, length=0),
    "bad json": with_header(b'{"a": {"dtype": "F32",, }', EIGHT_BYTES),
    "not an object": with_header(b"[1, 2]", EIGHT_BYTES),
    "empty shape of 2**62": with_header(entry(shape=[0, 2**62], offsets=[0, 0])),
    "shape of 2**62 x 2**62": with_header(entry(shape=[2**62, 2**62]), EIGHT_BYTES),
    "negative shape": with_header(entry(shape=[-2]), EIGHT_BYTES),
    "offsets outside the data": with_header(entry(offsets=[0, 800]), EIGHT_BYTES),
    "offsets reversed": with_header(entry(offsets=[8, 0]), EIGHT_BYTES),
    "offsets too short for the shape": with_header(entry(shape=[3]), EIGHT_BYTES),
    "unknown dtype code": with_header(entry(dtype="F99"), EIGHT_BYTES),
    "dtype not a string": with_header(entry(dtype=7), EIGHT_BYTES),
    "metadata not strings": with_header({"__metadata__": {"k": [1]}, **entry()}, EIGHT_BYTES),
}


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_every_damaged_file_is_a_runtime_error_naming_it(tmp_path, case):
    path = tmp_path / "damaged.safetensors"
    path.write_bytes(DAMAGED[case])
    with pytest.raises(RuntimeError, match=re.escape(str(path))):
        mt.load(path)


def test_the_table_of_damaged_files_starts_from_a_good_one(tmp_path):
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    assert np.array_equal(mt.load(tmp_path / "good.safetensors")["a"].numpy(), [0.0, 1.0])
