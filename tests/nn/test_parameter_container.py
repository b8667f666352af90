"""``ParameterList`` and ``ParameterDict`` register what they hold, under PyTorch's names:
the optimizer, ``state_dict`` and ``load_state_dict`` see every entry."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt


class Holder(mt.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weights = mt.nn.ParameterList([mt.ones(2, 3), mt.nn.Parameter(mt.zeros(3))])
        self.extra = mt.nn.ParameterDict({"scale": mt.ones(1)})

    def forward(self, x: mt.Tensor) -> mt.Tensor:
        return (x @ self.weights[0] + self.weights[-1]) * self.extra["scale"]


class TorchHolder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weights = torch.nn.ParameterList([torch.ones(2, 3), torch.nn.Parameter(torch.zeros(3))])
        self.extra = torch.nn.ParameterDict({"scale": torch.ones(1)})


def test_entries_are_registered_under_pytorchs_names() -> None:
    ours, theirs = Holder(), TorchHolder()
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(isinstance(p, mt.nn.Parameter) and p.requires_grad for p in ours.parameters())
    ours.load_state_dict({k: mt.tensor(v.detach().numpy() + 1) for k, v in theirs.state_dict().items()})
    assert np.array_equal(ours.weights[1].detach().numpy(), np.ones(3, dtype=np.float32))


def test_an_optimizer_trains_the_entries() -> None:
    model = Holder()
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
    model(mt.ones(4, 2)).sum().backward()
    optimizer.step()
    assert np.allclose(model.weights[1].detach().numpy(), -0.4)  # d/db of the sum is 4 per entry
    assert np.allclose(model.extra["scale"].detach().numpy(), 1 - 0.1 * 4 * 3 * 2)


def test_parameter_list_behaves_as_a_list() -> None:
    values = mt.nn.ParameterList()
    values.append(mt.ones(1))
    values.extend([mt.zeros(2), mt.ones(3)])
    values += [mt.ones(4)]
    assert len(values) == 4
    assert [tuple(p.shape) for p in values] == [(1,), (2,), (3,), (4,)]
    assert values[-1].shape == (4,)
    assert [tuple(p.shape) for p in values[1:3]] == [(2,), (3,)]
    values[0] = mt.full((5,), 2.0)
    assert isinstance(values[0], mt.nn.Parameter) and values[0].shape == (5,)
    assert [n for n, _ in values.named_parameters()] == ["0", "1", "2", "3"]
    with pytest.raises(IndexError):
        values[4]
    with pytest.raises(TypeError):
        values.extend(mt.ones(2))
    assert "Parameter containing: [torch.float32 of size 5]" in repr(values)


def test_parameter_dict_behaves_as_a_dict() -> None:
    values = mt.nn.ParameterDict([("a", mt.ones(1)), ("b", mt.zeros(2))])
    values["c"] = mt.ones(3)
    values.update({"d": mt.ones(4)})
    assert list(values) == ["a", "b", "c", "d"] == list(values.keys())
    assert "c" in values and "z" not in values
    assert values.pop("b").shape == (2,)
    assert [n for n, _ in values.named_parameters()] == ["a", "c", "d"]
    assert values.get("z") is None
    assert values.setdefault("e", mt.zeros(1)).shape == (1,)
    key, value = values.popitem()
    assert key == "e" and value.shape == (1,)
    copied = values.copy()
    assert list(copied) == ["a", "c", "d"] and copied["a"] is values["a"]
    with pytest.raises(KeyError):
        values["z"]
    values.clear()
    assert len(values) == 0 and list(values.parameters()) == []
