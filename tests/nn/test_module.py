"""``nn.Module``: registration, traversal, modes, state dicts (PyTorch's keys), printing."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch import nn


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 8), lib.nn.ReLU(),
                             lib.nn.Linear(8, 1))  # fmt: skip


def cnn(lib):
    return lib.nn.Sequential(
        lib.nn.Conv2d(1, 8, 3, padding=1), lib.nn.BatchNorm2d(8), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
        lib.nn.Conv2d(8, 16, 3, padding=1, bias=False), lib.nn.ReLU(), lib.nn.AvgPool2d(2),
        lib.nn.Flatten(), lib.nn.Dropout(0.25), lib.nn.Linear(16 * 2 * 2, 10), lib.nn.LogSoftmax(dim=1),
    )  # fmt: skip


def custom(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = lib.nn.LayerNorm(4)
            self.layers = lib.nn.ModuleList([lib.nn.Linear(4, 4) for _ in range(2)])
            self.heads = lib.nn.ModuleDict({"a": lib.nn.Linear(4, 2), "b": lib.nn.Linear(4, 3, bias=False)})
            self.scale = lib.nn.Parameter(lib.ones(1))
            self.register_buffer("steps", lib.zeros(1))
            self.register_buffer("cache", lib.zeros(2), persistent=False)

        def forward(self, x):
            for layer in self.layers:
                x = layer(self.norm(x)).relu()
            return self.heads["a"](x) * self.scale

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = lib.nn.Embedding(10, 4)
            self.block = Block()
            self.bn = lib.nn.BatchNorm1d(2)

        def forward(self, index):
            return self.bn(self.block(self.embed(index)))

    return Net()


ARCHITECTURES = {"mlp": mlp, "cnn": cnn, "custom": custom}


@pytest.mark.parametrize("name", ARCHITECTURES)
def test_state_dict_keys_and_shapes_equal_pytorch(name):
    ours, theirs = ARCHITECTURES[name](mt), ARCHITECTURES[name](torch)
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd.keys()) == list(theirs_sd.keys())
    for key in theirs_sd:
        assert tuple(ours_sd[key].shape) == tuple(theirs_sd[key].shape), key
        assert ours_sd[key].dtype.name == str(theirs_sd[key].dtype).split(".")[1], key
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_repr_equals_pytorch(name):
    assert repr(ARCHITECTURES[name](mt)) == repr(ARCHITECTURES[name](torch))


def test_repr_of_layers_equals_pytorch():
    layers = [
        lambda lib: lib.nn.Linear(3, 4, bias=False), lambda lib: lib.nn.Conv1d(2, 3, 5, stride=2),
        lambda lib: lib.nn.Conv2d(2, 3, (3, 1), padding="same"),
        lambda lib: lib.nn.Conv2d(1, 2, 3, dilation=2),
        lambda lib: lib.nn.LeakyReLU(0.2), lambda lib: lib.nn.GELU(approximate="tanh"),
        lambda lib: lib.nn.Softmax(dim=-1), lambda lib: lib.nn.Embedding(5, 2, padding_idx=0),
        lambda lib: lib.nn.LayerNorm((3, 4)), lambda lib: lib.nn.BatchNorm1d(3, momentum=None),
        lambda lib: lib.nn.Dropout(), lambda lib: lib.nn.Identity(), lambda lib: lib.nn.MSELoss(),
        lambda lib: lib.nn.CrossEntropyLoss(),
    ]  # fmt: skip
    for build in layers:
        assert repr(build(mt)) == repr(build(torch))


def test_registration_and_traversal():
    model = custom(mt)
    assert isinstance(model.block.scale, nn.Parameter)
    assert model.block.scale.requires_grad and model.block.scale.is_leaf
    assert "block.cache" not in model.state_dict()  # non-persistent buffer
    assert any(name == "block.cache" for name, _ in model.named_buffers())
    assert len(list(model.parameters())) == len(list(custom(torch).parameters()))
    assert len(list(model.parameters(recurse=False))) == 0
    assert model.get_submodule("block.heads.a") is model.block.heads["a"]
    assert model.get_parameter("block.layers.1.weight") is model.block.layers[1].weight
    # re-assigning replaces; assigning None to a parameter keeps the slot
    model.block.heads["b"].bias = None
    model.block.scale = nn.Parameter(mt.zeros(1))
    assert "block.scale" in model.state_dict()
    del model.block.scale
    assert "block.scale" not in model.state_dict()


def test_shared_parameter_is_listed_once():
    layer = nn.Linear(3, 3)
    model = nn.Sequential(layer, nn.ReLU(), layer)
    assert len(list(model.parameters())) == 2
    assert list(model.state_dict()) == list(
        torch.nn.Sequential(*(lambda l: [l, torch.nn.ReLU(), l])(torch.nn.Linear(3, 3))).state_dict()
    )


def test_setattr_before_init_is_explained():
    class Broken(nn.Module):
        def __init__(self):
            self.layer = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match="super\\(\\).__init__\\(\\)"):
        Broken()


def test_forward_missing():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(mt.zeros(1))


def test_train_eval_and_apply():
    model = cnn(mt)
    assert model.training and all(m.training for m in model.modules())
    model.eval()
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Sequential" and seen[0] == "Conv2d"

    def zero_linear(module):
        if isinstance(module, nn.Linear):
            nn.init.zeros_(module.weight)

    model.apply(zero_linear)
    assert not model[9].weight.detach().numpy().any()


def test_zero_grad_and_requires_grad():
    model = mlp(mt)
    model(mt.randn(4, 2)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())


def test_to_dtype_keeps_parameter_objects_and_integer_buffers():
    model = cnn(mt)
    weight = model[0].weight
    model.double()
    assert model[0].weight is weight and weight.dtype is mt.float64
    assert model[1].running_mean.dtype is mt.float64
    assert model[1].num_batches_tracked.dtype is mt.int64
    assert model(mt.randn(2, 1, 8, 8, dtype=mt.float64)).dtype is mt.float64
    model.to(mt.float32)
    assert weight.dtype is mt.float32


def test_load_state_dict_copies_values():
    source, target = mlp(mt), mlp(mt)
    result = target.load_state_dict(source.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    for (name, a), (_, b) in zip(source.state_dict().items(), target.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), name
    before = target[0].weight
    target.load_state_dict(source.state_dict())
    assert target[0].weight is before  # copied in place: optimizers keep working


def test_load_state_dict_strict_lists_missing_and_unexpected_keys():
    model = mlp(mt)
    state = model.state_dict()
    state.pop("0.bias")
    state["extra.weight"] = mt.zeros(1)
    original = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    with pytest.raises(RuntimeError) as error:
        model.load_state_dict({k: v * 0 for k, v in state.items()})
    message = str(error.value)
    assert 'Missing key(s) in state_dict: "0.bias"' in message
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in message
    assert "Sequential" in message
    for key, value in model.state_dict().items():  # untouched
        assert np.array_equal(value.numpy(), original[key])
    result = model.load_state_dict({k: v * 0 for k, v in state.items()}, strict=False)
    assert result.missing_keys == ["0.bias"] and result.unexpected_keys == ["extra.weight"]
    assert not model[0].weight.detach().numpy().any()


def test_load_state_dict_shape_mismatch_leaves_model_untouched():
    model = mlp(mt)
    original = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    state = {k: v * 0 for k, v in model.state_dict().items()}
    state["2.weight"] = mt.zeros(8, 7)
    for strict in (True, False):
        expected = (r"size mismatch for 2.weight: copying a param with shape torch.Size\(\[8, 7\]\) "
                    r"from checkpoint, the shape in current model is torch.Size\(\[8, 8\]\)")
        with pytest.raises(RuntimeError, match=expected):
            model.load_state_dict(state, strict=strict)
        for key, value in model.state_dict().items():
            assert np.array_equal(value.numpy(), original[key]), key


def test_parameter_basics():
    data = mt.randn(3)
    param = nn.Parameter(data)
    assert isinstance(param, mt.Tensor) and param.requires_grad and param.is_leaf
    assert repr(param).startswith("Parameter containing:\ntensor(")
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    data.add_(1)  # shares memory with the tensor it was made from
    assert np.array_equal(param.detach().numpy(), data.numpy())
    assert type(param * 2) is mt.Tensor
    with pytest.raises(TypeError, match="cannot assign 'Tensor' object to parameter"):
        nn.Module().register_parameter("w", mt.zeros(1))


def test_deepcopy_gives_independent_model():
    model = mlp(mt)
    clone = copy.deepcopy(model)
    assert isinstance(clone[0].weight, nn.Parameter)
    with mt.no_grad():
        clone[0].weight.add_(1)
    assert not np.array_equal(clone[0].weight.detach().numpy(), model[0].weight.detach().numpy())


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seq.append(nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and isinstance(seq[0:2], nn.Sequential)
    del seq[1]
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict(hidden=nn.Linear(2, 2), act=nn.Tanh()))
    assert list(named.state_dict()) == ["hidden.weight", "hidden.bias"]
    layers = nn.ModuleList([nn.Linear(1, 1)])
    layers += [nn.Linear(1, 2)]
    layers.insert(0, nn.Identity())
    assert len(layers) == 3 and isinstance(layers[0], nn.Identity)
    heads = nn.ModuleDict({"x": nn.Linear(1, 1)})
    heads["y"] = nn.Linear(1, 2)
    assert list(heads.keys()) == ["x", "y"] and "y" in heads
    with pytest.raises(IndexError):
        seq[5]
