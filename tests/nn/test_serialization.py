"""``minitorch.save``/``load``: safetensors round trips, PyTorch interoperability, and
damaged files that must fail clearly without touching the model."""

from __future__ import annotations

import json
import pickle

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
    safetensors.torch.save_file(
        {"half": torch.zeros(2, dtype=torch.float16)}, str(tmp_path / "h.safetensors")
    )
    with pytest.raises(TypeError, match="float16"):
        mt.load(tmp_path / "h.safetensors")


def test_corrupt_structure_metadata(tmp_path):
    import safetensors.numpy

    safetensors.numpy.save_file({"x": np.zeros(1, np.float32)}, str(tmp_path / "s.safetensors"),
                                metadata={"minitorch.structure": "{not json"})  # fmt: skip
    with pytest.raises(RuntimeError, match="corrupt minitorch metadata"):
        mt.load(tmp_path / "s.safetensors")
