"""``minitorch.save``/``load``: safetensors round trips, PyTorch interoperability, and
damaged files that must fail clearly without touching the model."""

from __future__ import annotations

import io
import json
import os
import pickle
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest
import safetensors.torch
import torch

import minitorch as mt
from minitorch import nn, optim
from tests.nn.test_module import cnn, custom, mlp


def assert_same_state(ours: dict, theirs: dict) -> None:
    assert list(ours) == list(theirs)
    for key in theirs:
        mine, other = ours[key], theirs[key]
        mine = mine.detach().numpy() if isinstance(mine, mt.Tensor) else mine.detach().numpy()
        assert np.array_equal(mine, other.detach().numpy()), key
        assert mine.dtype == other.detach().numpy().dtype, key


def test_tensor_round_trip(tmp_path):
    for value in (mt.randn(3, 4), mt.arange(6).reshape(2, 3).t(), mt.tensor(True), mt.zeros(0, 3),
                  mt.tensor([1.5, 2.5], dtype=mt.float64), mt.tensor(7, dtype=mt.int32)):  # fmt: skip
        mt.save(value, tmp_path / "t.safetensors")
        loaded = mt.load(tmp_path / "t.safetensors")
        assert isinstance(loaded, mt.Tensor) and loaded.dtype is value.dtype
        assert loaded.shape == value.shape and np.array_equal(loaded.numpy(), value.numpy())


@pytest.mark.parametrize("name, build", [("mlp", mlp), ("cnn", cnn), ("custom", custom)])
def test_state_dict_minitorch_to_pytorch_and_back(tmp_path, name, build):
    ours, theirs = build(mt), build(torch)
    path = tmp_path / f"{name}.safetensors"
    mt.save(ours.state_dict(), path)
    assert list(mt.load(path)) == list(ours.state_dict())  # order kept
    theirs.load_state_dict(safetensors.torch.load_file(str(path)))  # strict: keys and shapes fit
    assert_same_state(ours.state_dict(), theirs.state_dict())
    # and back: change PyTorch's weights, save from PyTorch, load into minitorch
    with torch.no_grad():
        for param in theirs.parameters():
            param.mul_(-2).add_(0.5)
    safetensors.torch.save_file(theirs.state_dict(), str(path))
    ours.load_state_dict(mt.load(path))
    assert_same_state(ours.state_dict(), theirs.state_dict())


def test_trained_batch_norm_statistics_survive(tmp_path):
    ours, theirs = cnn(mt), cnn(torch)
    ours(mt.randn(4, 1, 8, 8))  # updates running stats and num_batches_tracked
    mt.save(ours.state_dict(), tmp_path / "m.safetensors")
    theirs.load_state_dict(safetensors.torch.load_file(str(tmp_path / "m.safetensors")))
    assert int(theirs[1].num_batches_tracked) == 1
    ours.eval()
    theirs.eval()
    x = np.random.default_rng(0).standard_normal((2, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(ours(mt.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)  # fmt: skip


def test_nested_checkpoint_with_optimizer(tmp_path):
    model = mlp(mt)
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    for _ in range(2):
        optimizer.zero_grad()
        model(mt.randn(4, 2)).sum().backward()
        optimizer.step()
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3,
                  "note": "best", "history": [0.5, 0.25], "shape": (2, 3), "none": None}  # fmt: skip
    mt.save(checkpoint, tmp_path / "ckpt.safetensors")
    loaded = mt.load(tmp_path / "ckpt.safetensors")
    assert loaded["epoch"] == 3 and loaded["note"] == "best" and loaded["history"] == [0.5, 0.25]
    assert loaded["shape"] == (2, 3) and loaded["none"] is None
    assert_same_state(loaded["model"], model.state_dict())
    state = loaded["optimizer"]
    assert sorted(state["state"]) == [0, 1, 2, 3, 4, 5]  # integer keys survive
    assert state["param_groups"][0]["betas"] == (0.9, 0.999)
    fresh_model = mlp(mt)
    fresh_model.load_state_dict(loaded["model"])
    fresh = optim.Adam(fresh_model.parameters(), lr=0.5)
    fresh.load_state_dict(state)
    for a, b in zip(fresh.state.values(), optimizer.state.values()):
        assert np.array_equal(a["exp_avg"].numpy(), b["exp_avg"].numpy())
        assert float(a["step"]) == 2


def test_files_are_plain_safetensors(tmp_path):
    mt.save({"a": mt.ones(2)}, tmp_path / "f.safetensors")
    raw = (tmp_path / "f.safetensors").read_bytes()
    header = json.loads(raw[8 : 8 + int.from_bytes(raw[:8], "little")])
    assert header["a"]["dtype"] == "F32" and header["__metadata__"]["format"] == "pt"


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot store a Linear"):
        mt.save(nn.Linear(2, 2), tmp_path / "m.safetensors")
    assert not list(tmp_path.iterdir())  # nothing half-written


def damaged_files(tmp_path, good: bytes) -> dict:
    return {
        "empty": b"",
        "truncated header": good[:20],
        "truncated data": good[:-7],
        "garbage header": good[:8] + b"\xff" * (len(good) - 8),
        "huge header length": (10**12).to_bytes(8, "little") + good[8:],
    }


def test_damaged_files_raise_clearly_and_leave_model_untouched(tmp_path):
    model = mlp(mt)
    mt.save(model.state_dict(), tmp_path / "good.safetensors")
    good = (tmp_path / "good.safetensors").read_bytes()
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    for name, content in damaged_files(tmp_path, good).items():
        path = tmp_path / (name.replace(" ", "_") + ".safetensors")
        path.write_bytes(content)
        with pytest.raises(
            RuntimeError, match="not a valid safetensors file; it may be truncated or corrupt"
        ):
            model.load_state_dict(mt.load(path))
        for key, value in model.state_dict().items():
            assert np.array_equal(value.numpy(), before[key]), (name, key)


def test_shape_mismatch_file_leaves_model_untouched(tmp_path):
    mt.save(
        nn.Sequential(nn.Linear(2, 9), nn.Tanh(), nn.Linear(9, 8)).state_dict(),
        tmp_path / "other.safetensors",
    )
    model = mlp(mt)
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    with pytest.raises(RuntimeError, match="size mismatch for 0.weight"):
        model.load_state_dict(mt.load(tmp_path / "other.safetensors"), strict=False)
    for key, value in model.state_dict().items():
        assert np.array_equal(value.numpy(), before[key]), key


def test_pickles_are_never_loaded(tmp_path):
    torch.save(torch.nn.Linear(2, 2).state_dict(), tmp_path / "model.pt")
    with pytest.raises(RuntimeError, match="pickle.*never unpickles"):
        mt.load(tmp_path / "model.pt")

    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('pickle code ran')",))

    (tmp_path / "evil.pkl").write_bytes(pickle.dumps(Boom(), protocol=4))
    with pytest.raises(RuntimeError, match="never unpickles"):
        mt.load(tmp_path / "evil.pkl")


def test_missing_file_and_unsupported_dtype(tmp_path):
    with pytest.raises(FileNotFoundError):
        mt.load(tmp_path / "nope.safetensors")
    safetensors.torch.save_file({"wide": torch.zeros(2, dtype=torch.uint16)}, str(tmp_path / "u.safetensors"))
    with pytest.raises(TypeError, match="'wide' .* has dtype U16"):
        mt.load(tmp_path / "u.safetensors")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_loads_as_itself_exactly(tmp_path, dtype):
    values = torch.tensor([[0.1, -2.5, 65504.0], [1e-3, float("inf"), -0.0]]).to(dtype)
    safetensors.torch.save_file({"w": values}, str(tmp_path / "h.safetensors"))
    loaded = mt.load(tmp_path / "h.safetensors")["w"]
    assert loaded.dtype is getattr(mt, str(dtype).split(".")[1])
    expected = values.float().numpy()
    assert np.array_equal(loaded.float().numpy(), expected)
    assert np.array_equal(np.signbit(loaded.float().numpy()), np.signbit(expected))


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_get_the_mode_the_umask_allows(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        mt.save(mt.ones(2), tmp_path / "m.safetensors")
        torch.save(torch.ones(2), tmp_path / "t.pt")  # PyTorch's rule, for comparison
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "t.pt").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "m.safetensors").stat().st_mode) == mode


def test_existing_file_keeps_its_mode_and_a_symlink_is_written_through(tmp_path):
    real = tmp_path / "real.safetensors"
    mt.save(mt.zeros(2), real)
    real.chmod(0o640)
    link = tmp_path / "link.safetensors"
    link.symlink_to(real)
    mt.save(mt.ones(3), link)
    assert link.is_symlink() and link.resolve() == real  # the link stays a link
    assert np.array_equal(mt.load(real).numpy(), np.ones(3, np.float32))  # its target changed
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling.safetensors"
    dangling.symlink_to(tmp_path / "created.safetensors")
    mt.save(mt.ones(1), dangling)  # like open(path, "wb"): creates the link's target
    assert dangling.is_symlink() and mt.load(tmp_path / "created.safetensors").shape == (1,)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "created.safetensors", "dangling.safetensors", "link.safetensors", "real.safetensors"]  # fmt: skip


def test_file_objects_like_pytorch(tmp_path):
    checkpoint = {"w": mt.arange(6.0).reshape(2, 3), "step": 4}
    buffer = io.BytesIO()
    mt.save(checkpoint, buffer)
    buffer.seek(0)
    loaded = mt.load(buffer)
    assert loaded["step"] == 4 and np.array_equal(loaded["w"].numpy(), checkpoint["w"].numpy())
    with open(tmp_path / "f.safetensors", "wb") as file:
        mt.save(checkpoint["w"], file)
    with open(tmp_path / "f.safetensors", "rb") as file:
        assert np.array_equal(mt.load(file).numpy(), checkpoint["w"].numpy())
    with open(tmp_path / "f.safetensors", encoding="latin-1") as file:
        with pytest.raises(TypeError, match="binary mode"):
            mt.load(file)
    with pytest.raises(TypeError, match="a path or a binary file object, got int"):
        mt.save(mt.ones(1), 3)
    with pytest.raises(TypeError, match="a path or a binary file object, got NoneType"):
        mt.load(None)


def test_deep_nesting_is_a_clear_error(tmp_path):
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than 100 levels"):
        mt.save(deep, tmp_path / "deep.safetensors")
    assert not list(tmp_path.iterdir())
    import safetensors.numpy

    for depth in (150, 100_000):  # too deep for the structure, too deep for Python's json
        structure = "[" * depth + "]" * depth
        safetensors.numpy.save_file({"x": np.zeros(1, np.float32)}, str(tmp_path / "s.safetensors"),
                                    metadata={"minitorch.structure": structure})  # fmt: skip
        with pytest.raises(RuntimeError, match="corrupt minitorch metadata .*nested"):
            mt.load(tmp_path / "s.safetensors")
    header = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    (tmp_path / "h.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    with pytest.raises(RuntimeError, match="not a valid safetensors file.*nested too deeply"):
        mt.load(tmp_path / "h.safetensors")


def with_header(header: bytes, data: bytes) -> bytes:
    return len(header).to_bytes(8, "little") + header + data


def test_header_follows_the_format_rules(tmp_path):
    """The format: the header starts with '{' and MAY be padded with trailing spaces (the
    safetensors package pads to 8 bytes itself); duplicate keys are not allowed."""
    data = np.arange(2, dtype=np.float32).tobytes()
    entry = '{"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}'
    header = f'{{"a": {entry}}}'.encode()
    good = {"padded": header + b" " * 13, "unpadded": header}
    bad = {
        "leading space": b" " + header,
        "trailing tab": header + b"\t",
        "trailing NUL": header + b"\x00",
        "duplicate tensor": f'{{"a": {entry}, "a": {entry}}}'.encode(),
        "duplicate metadata key": f'{{"__metadata__": {{"k": "1", "k": "2"}}, "a": {entry}}}'.encode(),
    }
    for name, content in good.items():
        (tmp_path / "f.safetensors").write_bytes(with_header(content, data))
        assert np.array_equal(mt.load(tmp_path / "f.safetensors")["a"].numpy(), [0.0, 1.0]), name
    for name, content in bad.items():
        (tmp_path / "f.safetensors").write_bytes(with_header(content, data))
        with pytest.raises(RuntimeError, match="not a valid safetensors file"):
            mt.load(tmp_path / "f.safetensors")
            pytest.fail(f"accepted a header with a {name}")


def test_a_failed_save_leaves_no_temporary_file(tmp_path, monkeypatch):
    mt.save(mt.zeros(2), tmp_path / "m.safetensors")

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        mt.save(mt.ones(2), tmp_path / "m.safetensors")
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]
    assert np.array_equal(mt.load(tmp_path / "m.safetensors").numpy(), [0.0, 0.0])  # the old file


DIE_BEFORE_THE_RENAME = """
import os, signal, sys, minitorch as mt
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed midway: file written, not renamed
mt.save(mt.zeros(2**10), sys.argv[1])
"""


def test_a_killed_save_leaves_an_orphan_the_next_save_removes(tmp_path):
    target = tmp_path / "m.safetensors"
    mt.save(mt.zeros(2), target)
    seen = set()
    for _ in range(2):  # the second killed save removes the first one's orphan, leaves its own
        process = subprocess.run([sys.executable, "-c", DIE_BEFORE_THE_RENAME, str(target)], timeout=120)
        assert process.returncode == -signal.SIGKILL
        orphans = [p.name for p in tmp_path.glob(".m.safetensors.*.minitorch-tmp")]
        assert len(orphans) == 1 and orphans[0] not in seen, orphans
        seen.add(orphans[0])
    assert np.array_equal(mt.load(target).numpy(), [0.0, 0.0])  # the old file, whole
    mt.save(mt.ones(3), target)
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]
    assert np.array_equal(mt.load(target).numpy(), np.ones(3, np.float32))


def test_corrupt_structure_metadata(tmp_path):
    import safetensors.numpy

    safetensors.numpy.save_file({"x": np.zeros(1, np.float32)}, str(tmp_path / "s.safetensors"),
                                metadata={"minitorch.structure": "{not json"})  # fmt: skip
    with pytest.raises(RuntimeError, match="corrupt minitorch metadata"):
        mt.load(tmp_path / "s.safetensors")
