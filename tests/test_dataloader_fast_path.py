"""How a batch travels from a worker to the model: written once, straight into shared memory.

In a DataLoader worker, ``default_collate`` stacks the samples into a new shared-memory
segment and the TensorDataset fast path takes its rows into one, so sending the batch
copies nothing (``shared_storage.share``, the copying move, is never called for them) and
the main process maps the very pages the worker wrote. Checked here: batches still equal
the single-process loader's and PyTorch's ``default_collate`` on odd samples (0-d, empty,
transposed, every dtype, NumPy arrays and scalars, dicts, tuples, namedtuples, strings);
the stacked tensors are shared before they are sent; no segment is left behind; the
workers compute on one Numba thread.
"""

from __future__ import annotations

import collections
import gc
import os
import pickle
import subprocess
import sys
import textwrap
import time
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch import shared_storage
from minitorch.multiprocessing.reductions import init_reductions
from minitorch.utils.data import DataLoader, Dataset, TensorDataset, default_collate, get_worker_info
from minitorch.utils.data import worker_info as worker_info_module

ROOT = Path(__file__).resolve().parent.parent

Pair = collections.namedtuple("Pair", ["left", "right"])
DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"]


def _values(i: int, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    return (np.arange(np.prod(shape, dtype=int)).reshape(shape) * (i + 1) % 7).astype(dtype)


class OddSamples(Dataset):
    """Samples of every kind ``default_collate`` stacks, with one library's tensors:
    ``tensor(array)`` is ``minitorch.tensor`` or ``torch.tensor``."""

    def __init__(self, n: int = 9, torch_tensors: bool = False) -> None:
        self.n, self.torch_tensors = n, torch_tensors

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict:
        if self.torch_tensors:
            import torch

            tensor = torch.tensor
        else:
            tensor = minitorch.tensor
        sample = {name: tensor(_values(i, name, (2, 3))) for name in DTYPES}
        sample.update({
            "zero_dim": tensor(_values(i, "float32", ())),
            "empty": tensor(_values(i, "int64", (0, 3))),
            "transposed": tensor(_values(i, "float32", (3, 4))).t(),  # not contiguous
            "sliced": tensor(_values(i, "int32", (6,)))[::2],
            "array": _values(i, "float64", (2, 2)),
            "int_array": _values(i, "int32", (2, 3)).T,  # not contiguous
            "numpy_scalar": np.float32(i / 2),
            "number": i, "fraction": i / 4, "flag": i % 2 == 0,
            "text": f"sample {i}", "raw": b"\x00" * i,
            "pair": (tensor(_values(i, "float32", (2,))), i),
            "named": Pair(tensor(_values(i, "int64", (1,))), [f"{i}", float(i)]),
        })  # fmt: skip
        return sample


def _plain(batch: object) -> object:
    """A batch as nested Python values, each tensor as (dtype name, shape, strides, values)."""
    if hasattr(batch, "tolist") and hasattr(batch, "dtype"):
        return (str(batch.dtype).removeprefix("torch."), tuple(batch.shape), tuple(batch.stride()),
                batch.tolist())  # fmt: skip
    if isinstance(batch, dict):
        return {key: _plain(value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch).__name__, [_plain(value) for value in batch]
    return batch


def _segments_of(pids: set[int]) -> list[str]:
    """minitorch's segments made by these processes (the creator's pid is in the name)."""
    names = [path.name for path in Path(shared_storage.SEGMENT_DIR).glob(f"{shared_storage.PREFIX}*")]
    return [name for name in names
            if any(part.isdigit() and int(part) in pids for part in name.split("_")[1:-1])]  # fmt: skip


def _all_gone(pids: set[int], within: float = 8.0) -> bool:
    """The processes have exited (a zombie counts as exited)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    alive.append(stat.read().rsplit(")", 1)[1].split()[0] != "Z")
            except FileNotFoundError:
                pass
        if not any(alive):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def in_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process plays a DataLoader worker: ``get_worker_info()`` is not None."""
    monkeypatch.setattr(worker_info_module, "_worker_info", worker_info_module.WorkerInfo(0, 1, 0, Dataset()))
    init_reductions()


def _refuse_copies() -> None:
    """From now on, moving a private storage into shared memory (a copy) raises."""

    def refuse(values: np.ndarray, storage_class: type) -> np.ndarray:
        raise AssertionError(f"a batch tensor of {values.size} values was copied into shared memory")

    shared_storage.share = refuse


def _refuse_copies_in_worker(worker_id: int) -> None:
    _refuse_copies()


# ---------------------------------------------------------------------------------------
# The same batches


def test_odd_samples_collate_as_pytorch_with_and_without_workers() -> None:
    import torch

    theirs = [_plain(b) for b in torch.utils.data.DataLoader(OddSamples(torch_tensors=True), batch_size=4)]
    single = [_plain(b) for b in DataLoader(OddSamples(), batch_size=4)]
    workers = [_plain(b) for b in DataLoader(OddSamples(), batch_size=4, num_workers=2)]
    assert single == theirs  # dtypes, shapes, contiguous strides, values
    assert workers == single


def test_bfloat16_mixed_dtypes_and_grad_take_stack() -> None:
    """What NumPy cannot stack goes through ``stack`` (promotion, autograd, its errors)."""
    import torch

    halves = [minitorch.tensor([1.5, -2.0]).bfloat16(), minitorch.tensor([3.0, 0.25]).bfloat16()]
    assert default_collate(halves).dtype is minitorch.bfloat16
    assert default_collate(halves).float().tolist() == [[1.5, -2.0], [3.0, 0.25]]
    mixed = default_collate([minitorch.tensor([1, 2]), minitorch.tensor([0.5, 1.5])])
    assert (mixed.dtype, mixed.tolist()) == (minitorch.float32, [[1.0, 2.0], [0.5, 1.5]])
    theirs = torch.utils.data.default_collate([torch.tensor([1, 2]), torch.tensor([0.5, 1.5])])
    assert theirs.dtype == torch.float32
    leaf = minitorch.ones(2, requires_grad=True)
    stacked = default_collate([leaf, leaf * 2])
    stacked.sum().backward()
    assert leaf.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([minitorch.zeros(2), minitorch.zeros(3)])


def test_tensor_dataset_rows_equal_stacking_every_dtype() -> None:
    for dtype in [*DTYPES, "bfloat16"]:
        values = minitorch.tensor(_values(3, "float32", (7, 3))).to(getattr(minitorch, dtype))
        dataset = TensorDataset(values.t().contiguous().t(), minitorch.arange(7))  # column-major
        batches = list(DataLoader(dataset, batch_size=3, sampler=[6, 0, -1, 2, 5]))
        expected = minitorch.stack([values[i] for i in [6, 0, -1]])
        assert batches[0][0].dtype is values.dtype and batches[0][0].is_contiguous()
        assert batches[0][0].tolist() == expected.tolist(), dtype
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 7"):
        list(DataLoader(TensorDataset(minitorch.zeros(7, 2)), batch_size=2, sampler=[0, 9]))


# ---------------------------------------------------------------------------------------
# Written once, into shared memory


@pytest.mark.usefixtures("in_a_worker")
def test_collate_in_a_worker_writes_straight_into_shared_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    samples = [(minitorch.tensor(_values(i, "float32", (3, 2))).t(), _values(i, "int16", (2,)))
               for i in range(5)]  # fmt: skip
    images, arrays = default_collate(samples)
    assert images.is_shared() and arrays.is_shared()
    assert images.tolist() == minitorch.stack([s[0] for s in samples]).tolist()
    assert arrays.tolist() == [s[1].tolist() for s in samples]
    rows = DataLoader(TensorDataset(minitorch.arange(12).view(6, 2)), batch_size=4)._fetch_options()
    from minitorch.utils.data.fetch import make_fetcher

    (taken,) = make_fetcher(TensorDataset(minitorch.arange(12).view(6, 2)), rows).fetch([5, 1])
    assert taken.is_shared() and taken.tolist() == [[10, 11], [2, 3]]
    monkeypatch.setattr(shared_storage, "share", shared_storage.share)  # undone after the test
    _refuse_copies()
    sent = ForkingPickler.dumps([images, arrays, taken])  # sending copies nothing...
    assert len(sent) < 1000  # ...and carries names and layouts, not values
    received = pickle.loads(sent)
    assert all(a._storage is b._storage for a, b in zip(received, [images, arrays, taken]))
    with pytest.raises(AssertionError, match="copied into shared memory"):
        ForkingPickler.dumps(default_collate([1, 2, 3]))  # numbers: moved when sent, as in PyTorch


def test_collate_in_the_main_process_stays_private() -> None:
    batch = default_collate([minitorch.ones(2, 2), minitorch.zeros(2, 2)])
    assert not batch.is_shared() and batch.is_contiguous()


class ImagesAndLabels(Dataset):
    """Samples whose every field is stacked (no Python numbers): images, NumPy labels,
    and the Numba threads of the process that made them."""

    def __len__(self) -> int:
        return 10

    def __getitem__(self, i: int) -> dict:
        import numba

        image = minitorch.tensor(_values(i, "float32", (4, 5)))
        return {"image": image, "label": np.array(i % 3), "threads": np.array(numba.get_num_threads()),
                "in_worker": np.array(get_worker_info() is not None)}  # fmt: skip


def test_workers_send_batches_without_a_copy_and_leave_nothing() -> None:
    """Each worker refuses to copy a batch into shared memory: every batch still arrives,
    so each was written once, straight into its segment, and mapped here as it is."""
    loader = DataLoader(ImagesAndLabels(), batch_size=4, num_workers=2,
                        worker_init_fn=_refuse_copies_in_worker)  # fmt: skip
    iterator = iter(loader)
    pids = set(iterator.worker_pids)
    batches = list(iterator)
    single = list(DataLoader(ImagesAndLabels(), batch_size=4))
    assert [_plain(b["image"]) for b in batches] == [_plain(b["image"]) for b in single]
    assert [b["label"].tolist() for b in batches] == [b["label"].tolist() for b in single]
    assert all(b["in_worker"].all() and b["image"].is_shared() and b["label"].is_shared() for b in batches)
    assert {t for b in batches for t in b["threads"].tolist()} == {1}  # one Numba thread a worker
    assert len(_segments_of(pids)) == 4 * len(batches)  # one per tensor, made by the workers
    del batches, iterator, loader
    gc.collect()
    assert _all_gone(pids)
    assert _segments_of(pids) == []


def test_a_copy_in_a_worker_would_be_caught() -> None:
    """The check above can fail: a Python-number label is moved (copied) when sent."""

    class WithNumbers(ImagesAndLabels):
        def __getitem__(self, i: int) -> dict:
            return {**super().__getitem__(i), "label": i % 3}

    loader = DataLoader(WithNumbers(), batch_size=4, num_workers=2, worker_init_fn=_refuse_copies_in_worker)
    with pytest.raises(AssertionError, match="copied into shared memory"):
        list(loader)


def test_break_and_persistent_workers_leave_no_segment() -> None:
    loader = DataLoader(ImagesAndLabels(), batch_size=2, num_workers=2, persistent_workers=True)
    iterator = iter(loader)
    pids = set(iterator.worker_pids)
    first = next(iterator)
    assert first["image"].is_shared()
    assert len(list(loader)) == 5  # a new epoch after the break
    del iterator, loader, first
    gc.collect()
    assert _all_gone(pids)
    assert _segments_of(pids) == []


NUMBA_THREADS_PROGRAM = textwrap.dedent("""
    import sys

    import numba

    from minitorch.utils.data import DataLoader, Dataset


    class Threads(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return numba.get_num_threads()


    if __name__ == "__main__":
        loader = DataLoader(Threads(), batch_size=None, num_workers=2, multiprocessing_context=sys.argv[1])
        print(numba.get_num_threads(), *list(loader))
""")


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_each_worker_computes_on_one_numba_thread(start_method: str, tmp_path: Path) -> None:
    """Without ``NUMBA_NUM_THREADS`` the main process may use every core; each worker uses
    one thread, so two workers do not start a pool of threads per core each."""
    program = tmp_path / "threads.py"
    program.write_text(NUMBA_THREADS_PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"} | {"PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, str(program), start_method], env=env, capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    main, *workers = (int(word) for word in result.stdout.split())
    assert main == len(os.sched_getaffinity(0)) or main == os.cpu_count()
    assert workers == [1, 1, 1, 1]
