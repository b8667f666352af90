"""Datasets, ``DataLoader`` and collation; the bundled datasets; the MNIST IDX reader on
small files written here (good ones and damaged ones)."""

from __future__ import annotations

import gzip
from collections import namedtuple

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.data import DataLoader, Dataset, TensorDataset, default_collate, random_split


def test_minitorch_data_is_utils_data():
    assert mt.data.DataLoader is mt.utils.data.DataLoader
    assert mt.data.TensorDataset is mt.utils.data.TensorDataset


def test_tensor_dataset_and_loader():
    X, y = mt.arange(20).float().reshape(10, 2), mt.arange(10)
    dataset = TensorDataset(X, y)
    assert len(dataset) == 10
    first = dataset[3]
    assert first[0].tolist() == [6.0, 7.0] and first[1].item() == 3
    batches = list(DataLoader(dataset, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert isinstance(batches[0], list) and batches[0][0].shape == (4, 2)  # a list, as in PyTorch
    assert len(DataLoader(dataset, batch_size=4)) == 3
    assert len(DataLoader(dataset, batch_size=4, drop_last=True)) == 2
    assert [len(b[1]) for b in DataLoader(dataset, batch_size=4, drop_last=True)] == [4, 4]
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(X, mt.arange(9))


def test_shuffle_is_seeded_and_covers_everything():
    dataset = TensorDataset(mt.arange(50))
    order = lambda loader: [v for (batch,) in loader for v in batch.tolist()]  # noqa: E731
    mt.manual_seed(1)
    first = order(DataLoader(dataset, batch_size=8, shuffle=True))
    mt.manual_seed(1)
    assert order(DataLoader(dataset, batch_size=8, shuffle=True)) == first
    assert sorted(first) == list(range(50)) and first != list(range(50))
    loader = DataLoader(dataset, batch_size=8, shuffle=True, generator=mt.Generator().manual_seed(5))
    epoch1, epoch2 = order(loader), order(loader)
    assert epoch1 != epoch2  # a new permutation every epoch
    again = DataLoader(dataset, batch_size=8, shuffle=True, generator=mt.Generator().manual_seed(5))
    assert order(again) == epoch1


class Squares(Dataset):
    Sample = namedtuple("Sample", ["x", "y"])

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": float(i), "n": i, "pair": (mt.tensor([i, i]), np.array([i * 1.5])), "name": f"s{i}"}


def test_default_collate_like_pytorch():
    batch = default_collate([Squares()[i] for i in range(3)])
    expected = torch.utils.data.default_collate(
        [{"x": float(i), "n": i, "pair": (torch.tensor([i, i]), np.array([i * 1.5])), "name": f"s{i}"}
         for i in range(3)])  # fmt: skip
    assert batch["x"].dtype is mt.float64 and batch["x"].tolist() == expected["x"].tolist()
    assert batch["n"].dtype is mt.int64 and batch["n"].tolist() == expected["n"].tolist()
    assert isinstance(batch["pair"], list) and batch["pair"][0].tolist() == expected["pair"][0].tolist()
    assert batch["pair"][1].tolist() == expected["pair"][1].tolist()
    assert batch["name"] == expected["name"]
    point = Squares.Sample(1, 2.0)
    collated = default_collate([point, point])
    assert isinstance(collated, Squares.Sample) and collated.x.tolist() == [1, 1]
    assert default_collate([True, False]).dtype is mt.bool
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([object()])
    loader = DataLoader(Squares(), batch_size=2, collate_fn=lambda samples: len(samples))
    assert list(loader) == [2, 2, 1]


def test_random_split_and_subset():
    dataset = TensorDataset(mt.arange(10))
    train, test = random_split(dataset, [0.8, 0.2], generator=mt.Generator().manual_seed(0))
    assert len(train) == 8 and len(test) == 2
    values = sorted([train[i][0].item() for i in range(8)] + [test[i][0].item() for i in range(2)])
    assert values == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(dataset, [3, 3])
    both = train + test
    assert len(both) == 10


PLAYGROUND = ["circle", "xor", "gauss", "spiral"]


@pytest.mark.parametrize("name", PLAYGROUND)
def test_playground_classification(name):
    make = getattr(mt.data, name)
    X, y = make(seed=3)
    assert X.shape == (500, 2) and X.dtype is mt.float32 and y.dtype is mt.int64
    assert set(y.tolist()) == {0, 1} and 200 < y.sum().item() < 300
    assert float(X.abs().max()) <= 6.0 + 1e-6 or name == "gauss"
    X2, y2 = make(seed=3)
    assert (X2 == X).all() and (y2 == y).all()
    X3, _ = make(seed=4)
    assert not (X3 == X).all()
    Xs, ys = make(n=40, noise=30, seed=1, labels="sign")
    assert Xs.shape == (40, 2) and set(ys.tolist()) <= {-1.0, 1.0}


def test_playground_labels_follow_the_rules():
    X, y = mt.data.circle(seed=0)
    radius = (X * X).sum(1).sqrt()
    assert ((radius < 2.5) == (y == 1)).all()
    X, y = mt.data.xor(seed=0)
    assert (((X[:, 0] * X[:, 1]) >= 0) == (y == 1)).all()
    X, y = mt.data.gauss(seed=0)
    assert ((X.sum(1) > 0) == (y == 1)).float().mean().item() > 0.97
    mt.manual_seed(7)
    a = mt.data.spiral()
    mt.manual_seed(7)
    b = mt.data.spiral()
    assert (a[0] == b[0]).all()  # seed=None follows minitorch.manual_seed


def test_playground_regression():
    X, y = mt.data.reg_plane(seed=0)
    assert X.shape == (1200, 2) and y.shape == (1200,)
    assert np.allclose(y.numpy(), X.numpy().sum(1) / 10, atol=1e-6)
    X, y = mt.data.reg_gauss(n=300, noise=10, seed=0)
    assert y.shape == (300,) and float(y.abs().max()) <= 1.0
    with pytest.raises(ValueError, match="percent"):
        mt.data.reg_gauss(noise=-1)


def test_minitorch_simple_sets():
    for name, rule in (("simple", lambda x: x[:, 0] < 0.5), ("diag", lambda x: x.sum(1) < 0.5),
                       ("split", lambda x: (x[:, 0] < 0.2) | (x[:, 0] > 0.8))):  # fmt: skip
        X, y = getattr(mt.data, name)(n=100, seed=0)
        assert X.shape == (100, 2) and float(X.min()) >= 0 and float(X.max()) < 1
        assert np.array_equal(y.numpy() == 1, rule(X.numpy()))


def test_digits():
    pytest.importorskip("sklearn")
    train, test = mt.data.Digits(train=True), mt.data.Digits(train=False)
    assert len(train) == 1437 and len(test) == 360
    image, label = train[0]
    assert image.shape == (1, 8, 8) and image.dtype is mt.float32 and label.dtype is mt.int64
    assert 0 <= float(train.data.min()) and float(train.data.max()) <= 1
    assert set(test.targets.tolist()) == set(range(10))
    flat = mt.data.Digits(train=False, flatten=True)
    assert flat.data.shape == (360, 64) and (flat.targets == test.targets).all()
    xb, yb = next(iter(DataLoader(train, batch_size=32, shuffle=True)))
    assert xb.shape == (32, 1, 8, 8) and yb.shape == (32,)


# ----- MNIST from IDX files ---------------------------------------------------------------


def idx_bytes(array: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(s).to_bytes(4, "big") for s in array.shape)
    return header + array.astype(np.uint8).tobytes()


def write_mnist(folder, n=6, compress=False):
    images = np.random.default_rng(0).integers(0, 256, (n, 28, 28))
    labels = np.arange(n) % 10
    for prefix in ("train", "t10k"):
        for kind, array in (("images-idx3-ubyte", images), ("labels-idx1-ubyte", labels)):
            path = folder / f"{prefix}-{kind}"
            if compress:
                with gzip.open(str(path) + ".gz", "wb") as file:
                    file.write(idx_bytes(array))
            else:
                path.write_bytes(idx_bytes(array))
    return images, labels


@pytest.mark.parametrize("compress", [False, True])
def test_mnist_reads_idx_files(tmp_path, compress):
    images, labels = write_mnist(tmp_path, compress=compress)
    train = mt.data.MNIST(tmp_path, train=True)
    assert len(train) == 6 and train.data.shape == (6, 1, 28, 28)
    assert np.allclose(train.data.numpy()[:, 0], images / 255.0)
    assert train.targets.tolist() == labels.tolist()
    test = mt.data.MNIST(tmp_path, train=False, flatten=True)
    assert test.data.shape == (6, 784)


def test_mnist_torchvision_layout(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    write_mnist(raw)
    assert len(mt.data.MNIST(tmp_path)) == 6


def test_mnist_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte.*does not download"):
        mt.data.MNIST(tmp_path)


def test_read_idx_rejects_damaged_files(tmp_path):
    good = idx_bytes(np.zeros((3, 4, 4)))
    cases = {
        "empty": b"",
        "short magic": b"\x00\x00",
        "bad magic": b"\x01\x02\x08\x03" + good[4:],
        "bad type": b"\x00\x00\x07\x03" + good[4:],
        "truncated header": good[:9],
        "truncated data": good[:-5],
        "extra data": good + b"\x00\x00",
    }
    for name, content in cases.items():
        path = tmp_path / name.replace(" ", "_")
        path.write_bytes(content)
        with pytest.raises(ValueError) as error:
            mt.data.read_idx(path)
        assert str(path) in str(error.value), name
    assert "truncated" in _message(tmp_path / "truncated_data")
    damaged_gz = tmp_path / "broken.gz"
    damaged_gz.write_bytes(gzip.compress(good)[:-10])
    with pytest.raises(ValueError, match="broken.gz"):
        mt.data.read_idx(damaged_gz)


def _message(path) -> str:
    try:
        mt.data.read_idx(path)
    except ValueError as error:
        return str(error)
    return ""


def test_mnist_inconsistent_files(tmp_path):
    write_mnist(tmp_path)
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(np.arange(5)))
    with pytest.raises(ValueError, match="6 images but .* 5 labels"):
        mt.data.MNIST(tmp_path)
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(np.full(6, 12)))
    with pytest.raises(ValueError, match="digits 0-9"):
        mt.data.MNIST(tmp_path)
