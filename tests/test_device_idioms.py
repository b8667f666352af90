"""The device-selection idioms of PyTorch's tutorials answer truthfully: ``cuda`` when a
GPU or the CUDA emulator is on, the CPU otherwise; Apple's MPS never."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import minitorch
from minitorch.backends.cuda import device as cuda_device


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(cuda_device, "is_available", lambda: False)
    monkeypatch.setattr(cuda_device, "device_count", lambda: 0)


@pytest.fixture
def default_device_reset():
    yield
    minitorch.set_default_device(None)


def test_tutorial_idiom_picks_cpu_without_an_accelerator(no_cuda) -> None:
    assert minitorch.accelerator.is_available() is False
    assert minitorch.accelerator.current_accelerator() is None
    assert minitorch.accelerator.device_count() == 0
    assert minitorch.backends.mps.is_available() is False
    assert minitorch.backends.mps.is_built() is False
    device = (
        minitorch.accelerator.current_accelerator().type if minitorch.accelerator.is_available() else "cpu"
    )
    assert device == "cpu"
    device = (
        "cuda" if minitorch.cuda.is_available() else "mps" if minitorch.backends.mps.is_available() else "cpu"
    )
    assert device == "cpu"


def test_accelerator_is_cuda_when_cuda_works(monkeypatch) -> None:
    monkeypatch.setattr(cuda_device, "is_available", lambda: True)
    assert minitorch.accelerator.is_available() is True
    assert minitorch.accelerator.current_accelerator().type == "cuda"
    assert minitorch.accelerator.current_device_index() == 0


def test_answers_agree_with_torch_on_this_cpu_machine(no_cuda) -> None:
    """Torch is installed for the CPU only in CI: both libraries must say the same."""
    assert minitorch.accelerator.is_available() == torch.accelerator.is_available()
    assert minitorch.backends.mps.is_available() == torch.backends.mps.is_available()
    assert str(minitorch.get_default_device()) == str(torch.get_default_device())


def test_cudnn_switches_are_accepted() -> None:
    minitorch.backends.cudnn.deterministic = True
    minitorch.backends.cudnn.benchmark = False
    assert minitorch.backends.cudnn.is_available() is False


@pytest.fixture
def emulated_cuda():
    with cuda_device.emulated():
        yield


def test_default_device_is_used_by_factories_and_layers(default_device_reset, emulated_cuda) -> None:
    minitorch.set_default_device("cuda")
    assert minitorch.get_default_device() == minitorch.device("cuda")
    for made in (minitorch.zeros(2), minitorch.randn(3), minitorch.tensor([1.0, 2.0]),
                 minitorch.arange(4), minitorch.nn.Linear(2, 3).weight):  # fmt: skip
        assert made.device.type == "cuda"
    assert minitorch.zeros(2, device="cpu").device.type == "cpu"  # explicit wins
    assert minitorch.from_numpy(minitorch.zeros(2, device="cpu").numpy()).device.type == "cpu"
    minitorch.set_default_device(None)
    assert minitorch.zeros(1).device.type == "cpu"


def test_default_device_is_per_thread(default_device_reset, emulated_cuda) -> None:
    minitorch.set_default_device("cuda")
    seen = []
    worker = threading.Thread(target=lambda: seen.append(minitorch.ones(1).device))
    worker.start()
    worker.join()
    assert seen == [minitorch.device("cpu")]  # another thread keeps its own default
    assert minitorch.ones(1).device == minitorch.device("cuda")


def test_bad_default_device_is_refused(default_device_reset) -> None:
    with pytest.raises(RuntimeError):
        minitorch.set_default_device("tpu")
    assert minitorch.get_default_device() == minitorch.device("cpu")


# Which factories put their tensor on the default device. PyTorch's legacy constructors
# (``torch.Tensor(...)``, ``torch.FloatTensor(...)``) and ``from_numpy`` stay on the CPU.
FACTORIES = {
    "tensor": lambda t: t.tensor([1.0, 2.0]),
    "as_tensor": lambda t: t.as_tensor([1.0, 2.0]),
    "zeros": lambda t: t.zeros(2),
    "empty": lambda t: t.empty(2, 3),
    "full": lambda t: t.full((2,), 3.0),
    "arange": lambda t: t.arange(4),
    "linspace": lambda t: t.linspace(0, 1, 5),
    "eye": lambda t: t.eye(3),
    "randn": lambda t: t.randn(3),
    "randint": lambda t: t.randint(0, 5, (3,)),
    "nn.Linear": lambda t: t.nn.Linear(2, 3).weight,
    "Tensor(list)": lambda t: t.Tensor([1, 2]),
    "Tensor(sizes)": lambda t: t.Tensor(2, 3),
    "Tensor()": lambda t: t.Tensor(),
    "FloatTensor(list)": lambda t: t.FloatTensor([1.0]),
    "LongTensor(sizes)": lambda t: t.LongTensor(2),
    "from_numpy": lambda t: t.from_numpy(np.zeros(2)),
    "zeros_like": lambda t: t.zeros_like(t.zeros(2, device="cpu")),
}


def test_default_device_reaches_the_factories_torch_sends(default_device_reset, emulated_cuda) -> None:
    """PyTorch's answers come from its "meta" device (this CPU build has no CUDA)."""
    torch.set_default_device("meta")
    try:
        expected = {name: make(torch).device.type == "meta" for name, make in FACTORIES.items()}
    finally:
        torch.set_default_device(None)
    minitorch.set_default_device("cuda")
    got = {name: make(minitorch).device.type == "cuda" for name, make in FACTORIES.items()}
    assert got == expected
    assert str(minitorch.Tensor([[1, 2], [3, 4]]).type()) == "torch.FloatTensor"
