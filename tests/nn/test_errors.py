"""Bad input (issue 6, item 8): clear errors of PyTorch's types, raised before any kernel."""

from __future__ import annotations

import pytest
import torch

import minitorch as mt
from minitorch import nn, optim


def test_linear_wrong_feature_size_names_layer_and_sizes():
    layer = nn.Linear(4, 3)
    with pytest.raises(RuntimeError) as error:
        layer(mt.zeros(2, 5))
    message = str(error.value)
    assert "Linear(in_features=4, out_features=3, bias=True)" in message
    assert "4 features" in message and "[2, 5]" in message and "(5 features)" in message


def test_linear_inside_sequential():
    model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(7, 1))
    with pytest.raises(RuntimeError, match=r"Linear\(in_features=7, out_features=1.*\[4, 8\] \(8 features\)"):
        model(mt.zeros(4, 2))


def test_conv2d_wrong_channels_names_layer_and_sizes():
    layer = nn.Conv2d(3, 8, 3)
    with pytest.raises(RuntimeError) as error:
        layer(mt.zeros(2, 1, 8, 8))
    message = str(error.value)
    assert "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))" in message
    assert "3 channels" in message and "[2, 1, 8, 8]" in message and "(1 channels)" in message
    with pytest.raises(RuntimeError, match="expects a 3D \\(unbatched\\) or 4D \\(batched\\) input"):
        layer(mt.zeros(8, 8))
    with pytest.raises(RuntimeError, match="too small"):
        layer(mt.zeros(1, 3, 2, 2))
    with pytest.raises(RuntimeError, match="expected input\\[2, 1, 8, 8\\] to have 3 channels"):
        mt.nn.functional.conv2d(mt.zeros(2, 1, 8, 8), layer.weight)


def test_batch_norm_wrong_input():
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        nn.BatchNorm2d(3)(mt.zeros(2, 3))
    with pytest.raises(RuntimeError, match="BatchNorm1d\\(3.*3 channels"):
        nn.BatchNorm1d(3)(mt.zeros(2, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(mt.zeros(1, 3))


@pytest.mark.parametrize("target", [[0, 5, 1], [0, -1, 1]])
def test_cross_entropy_class_out_of_range(target):
    logits = mt.randn(3, 4)
    with pytest.raises(IndexError) as error:
        nn.CrossEntropyLoss()(logits, mt.tensor(target))
    message = str(error.value)
    assert f"Target {target[1]} is out of bounds" in message and "4 classes" in message
    with pytest.raises(IndexError):  # PyTorch raises IndexError too
        torch.nn.CrossEntropyLoss()(torch.randn(3, 4), torch.tensor(target))


def test_cross_entropy_other_bad_targets():
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        nn.NLLLoss()(mt.randn(3, 4), mt.zeros(3))
    with pytest.raises(ValueError, match="Expected target of shape \\[3\\]"):
        nn.CrossEntropyLoss()(mt.randn(3, 4), mt.tensor([0, 1]))
    ignored = nn.CrossEntropyLoss(ignore_index=7)(mt.randn(2, 4), mt.tensor([7, 1]))
    assert ignored.item() == ignored.item()  # ignore_index itself is not out of range


def test_embedding_index_out_of_range():
    with pytest.raises(IndexError, match="index out of range in self: index 5"):
        nn.Embedding(5, 2)(mt.tensor([1, 5]))


def test_binary_cross_entropy_input_not_probability():
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        nn.BCELoss()(mt.tensor([1.5]), mt.tensor([1.0]))


def test_optimizer_non_leaf_and_empty_and_tensor():
    leaf = mt.randn(3, requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([leaf * 2], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        torch.optim.SGD([torch.randn(3, requires_grad=True) * 2], lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD(nn.ReLU().parameters(), lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        torch.optim.Adam([])
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        optim.SGD(leaf, lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [leaf]}, {"params": [leaf]}], lr=0.1)


def test_load_state_dict_not_a_mapping():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        nn.Linear(2, 2).load_state_dict([1, 2])


def test_pooling_and_padding_arguments():
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        nn.MaxPool2d(2, padding=2)(mt.zeros(1, 1, 4, 4))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        nn.AvgPool2d(2, padding=2)(mt.zeros(1, 1, 4, 4))  # (ceil_mode=True works: test_pool_ceil_mode.py)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(4, 4, 3, groups=3)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(1.5)
