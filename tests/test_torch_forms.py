"""``torch.*``'s twins of ``nn.functional`` (``torch.batch_norm``, ``torch.embedding``...,
``minitorch/nn/functional/torch_forms.py``; ``torch.lstm``..., ``torch_recurrent.py``) and
the runtime switches (``torch.set_num_threads``..., ``minitorch/runtime_settings.py``),
called positionally as PyTorch's schemas order them and compared with torch."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import torch

import minitorch
from minitorch import runtime_settings
from minitorch.nn import functional as F

RNG = np.random.default_rng(31)


def pair(*shape, low=None, dtype=np.float32):
    """The same values as a torch and a minitorch tensor."""
    if low is not None:
        values = RNG.integers(low, shape[0], shape[1:])
    else:
        values = RNG.standard_normal(shape).astype(dtype)
    return torch.tensor(values), minitorch.tensor(values)


def check(ours, theirs, **tolerance) -> None:
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            check(a, b, **tolerance)
        return
    torch.testing.assert_close(torch.from_numpy(np.array(ours.detach().numpy())), theirs.detach(),
                               **tolerance)  # fmt: skip


SAME_AS_F = ["adaptive_avg_pool1d", "avg_pool1d", "bilinear", "celu", "channel_shuffle", "conv1d",
             "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
             "cosine_similarity", "hardshrink", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
             "max_pool3d", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu",
             "rms_norm", "selu", "threshold"]  # fmt: skip


def test_where_the_schemas_agree_the_name_is_fs_function() -> None:
    for name in SAME_AS_F:
        # (hardshrink and prelu are defined in ops/, so minitorch.<name> is out.py's wrapper of F's)
        assert inspect.unwrap(getattr(minitorch, name)) is getattr(F, name), name
    x_t, x_m = pair(2, 4, 6)
    w_t, w_m = pair(4, 2, 3)  # grouped, strided, padded, dilated: positional as torch's schema
    check(minitorch.conv1d(x_m, w_m, None, 2, 1, 1, 2), torch.conv1d(x_t, w_t, None, 2, 1, 1, 2))
    check(minitorch.max_pool1d(x_m, 3, 2, 1, 1, True), torch.max_pool1d(x_t, 3, 2, 1, 1, True))


def test_normalizations_in_atens_order() -> None:
    x_t, x_m = pair(4, 3, 5)
    x_t, x_m = x_t.transpose(0, 2), x_m.transpose(0, 2)  # non-contiguous: [5, 3, 4]
    w_t, w_m = pair(3)
    b_t, b_m = pair(3)
    mean_t, mean_m, var_t, var_m = torch.zeros(3), minitorch.zeros(3), torch.ones(3), minitorch.ones(3)
    check(minitorch.batch_norm(x_m, w_m, b_m, mean_m, var_m, True, 0.2, 1e-3, False),
          torch.batch_norm(x_t, w_t, b_t, mean_t, var_t, True, 0.2, 1e-3, False))  # fmt: skip
    check((mean_m, var_m), (mean_t, var_t))  # the running statistics were updated alike
    check(minitorch.instance_norm(x_m, w_m, b_m, None, None, True, 0.1, 1e-5, True),
          torch.instance_norm(x_t, w_t, b_t, None, None, True, 0.1, 1e-5, True))  # fmt: skip
    check(minitorch.layer_norm(x_m, (3, 4), None, None, 1e-4, True),
          torch.layer_norm(x_t, (3, 4), None, None, 1e-4, True))  # fmt: skip
    check(minitorch.group_norm(x_m.reshape(5, 12, 1), 4, None, None, 1e-5, False),
          torch.group_norm(x_t.reshape(5, 12, 1), 4, None, None, 1e-5, False))  # fmt: skip
    with pytest.raises(TypeError):  # every argument is required, as in PyTorch's schema
        minitorch.batch_norm(x_m, w_m, b_m, mean_m, var_m, True, 0.1, 1e-5)


def test_losses_take_atens_integer_reduction() -> None:
    a_t, a_m = pair(4, 3)
    b_t, b_m = pair(4, 3)
    c_t, c_m = pair(4, 3)
    sign_t = torch.tensor([1.0, -1.0, 1.0, -1.0])
    sign_m = minitorch.tensor([1.0, -1.0, 1.0, -1.0])
    target_t, target_m = a_t.sigmoid(), a_m.sigmoid()
    pos_t, pos_m = torch.tensor([1.0, 2.0, 0.5]), minitorch.tensor([1.0, 2.0, 0.5])
    cases = [  # (name, minitorch's arguments, torch's): reduction last, 0 none, 1 mean, 2 sum
        ("binary_cross_entropy_with_logits", (b_m, target_m, None, pos_m, 2),
         (b_t, target_t, None, pos_t, 2)),
        ("cosine_embedding_loss", (a_m, b_m, sign_m, 0.1, 0), (a_t, b_t, sign_t, 0.1, 0)),
        ("hinge_embedding_loss", (a_m, sign_m[:3], 0.5, 1), (a_t, sign_t[:3], 0.5, 1)),
        ("margin_ranking_loss", (a_m[:, 0], b_m[:, 0], sign_m, 0.2, 2),
         (a_t[:, 0], b_t[:, 0], sign_t, 0.2, 2)),
        ("poisson_nll_loss", (a_m, target_m, True, True, 1e-8, 1), (a_t, target_t, True, True, 1e-8, 1)),
        ("triplet_margin_loss", (a_m, b_m, c_m, 1.0, 2, 1e-6, True, 0),
         (a_t, b_t, c_t, 1.0, 2, 1e-6, True, 0)),
    ]  # fmt: skip
    for name, ours, theirs in cases:
        check(getattr(minitorch, name)(*ours), getattr(torch, name)(*theirs))
    check(minitorch.kl_div(a_m, b_m, 1, log_target=True), torch.kl_div(a_t, b_t, 1, log_target=True))
    with pytest.raises(TypeError, match="reduction"):
        minitorch.margin_ranking_loss(a_m[:, 0], b_m[:, 0], sign_m, 0.0, "mean")


def test_embedding_takes_the_weight_first() -> None:
    weight_t, weight_m = pair(6, 3)
    weight_t.requires_grad_(True)
    weight_m.requires_grad_(True)
    index_t, index_m = pair(6, 2, 4, low=0)
    ours, theirs = minitorch.embedding(weight_m, index_m.t(), 2), torch.embedding(weight_t, index_t.t(), 2)
    check(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    check(weight_m.grad, weight_t.grad)  # the padding row gets no gradient
    check(minitorch.embedding(weight_m, index_m), torch.embedding(weight_t, index_t))  # -1: no padding
    with pytest.raises(RuntimeError, match="indices"):
        minitorch.embedding(weight_m, index_m.float())


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_returns_atens_bookkeeping(mode) -> None:
    weight_t, weight_m = pair(6, 3)
    index = np.array([0, 2, 4, 5, 1])
    offsets = np.array([0, 2, 2])  # the middle bag is empty
    for padding in (None, 2):
        ours = minitorch.embedding_bag(weight_m, minitorch.tensor(index), minitorch.tensor(offsets), False,
                                       mode, False, None, False, padding)  # fmt: skip
        theirs = torch.embedding_bag(weight_t.double(), torch.tensor(index), torch.tensor(offsets), False,
                                     mode, False, None, False, padding)  # fmt: skip
        check(ours[0], theirs[0].float())
        check(ours[1:], theirs[1:])  # float64: PyTorch's float32 sum fast path leaves offset2bag empty


def test_pooling_with_indices_returns_both() -> None:
    x_t, x_m = pair(2, 3, 7)
    check(minitorch.adaptive_max_pool1d(x_m, 3), torch.adaptive_max_pool1d(x_t, 3))
    check(minitorch.max_pool1d_with_indices(x_m, 2), torch.max_pool1d_with_indices(x_t, 2))


@pytest.mark.parametrize("bias", [True, False])
def test_recurrent_cells(bias) -> None:
    x_t, x_m = pair(2, 3)
    h_t, h_m = pair(2, 4)
    c_t, c_m = pair(2, 4)

    def weights(gates):
        w = [pair(gates * 4, 3), pair(gates * 4, 4)] + ([pair(gates * 4), pair(gates * 4)] if bias else [])
        return [t for t, _ in w], [m for _, m in w]

    for name, gates in (("rnn_tanh_cell", 1), ("rnn_relu_cell", 1), ("gru_cell", 3)):
        w_t, w_m = weights(gates)
        check(getattr(minitorch, name)(x_m, h_m, *w_m), getattr(torch, name)(x_t, h_t, *w_t))
    w_t, w_m = weights(4)
    check(minitorch.lstm_cell(x_m, (h_m, c_m), *w_m), torch.lstm_cell(x_t, (h_t, c_t), *w_t))


@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_relu"])
def test_whole_recurrent_networks_from_flat_weights(name) -> None:
    """Two bidirectional layers, batch first, from a torch layer's ``_flat_weights``."""
    torch.manual_seed(0)
    layer = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_relu": torch.nn.RNN}[name]
    kwargs = {"nonlinearity": "relu"} if name == "rnn_relu" else {}
    weights_t = [w.detach() for w in layer(3, 4, 2, bidirectional=True, **kwargs)._flat_weights]
    weights_m = [minitorch.tensor(w.numpy()) for w in weights_t]
    x_t, x_m = pair(2, 5, 3)
    h_t, h_m = pair(4, 2, 4)
    hx_t, hx_m = ((h_t, h_t * 0.5), (h_m, h_m * 0.5)) if name == "lstm" else (h_t, h_m)
    check(getattr(minitorch, name)(x_m, hx_m, weights_m, True, 2, 0.0, False, True, True),
          getattr(torch, name)(x_t, hx_t, weights_t, True, 2, 0.0, False, True, True))  # fmt: skip
    packed = (x_m[0], minitorch.tensor([1] * 5), hx_m, weights_m, True, 2, 0.0, False, True)
    with pytest.raises(NotImplementedError, match="packed"):
        getattr(minitorch, name)(*packed)


def test_dropout_forms_train_and_in_place() -> None:
    x_t, x_m = pair(5, 6)
    torch.manual_seed(7)
    minitorch.manual_seed(7)
    check(minitorch.dropout(x_m, 0.4, True), torch.dropout(x_t, 0.4, True))  # PyTorch's masks (non-MKL)
    for name in ("dropout", "alpha_dropout", "feature_alpha_dropout"):
        assert getattr(minitorch, name)(x_m, 0.5, False) is x_m  # not training: the input itself
        y = x_m.clone()
        out = getattr(minitorch, name + "_")(y, 0.5, True)
        assert out is y and not np.array_equal(y.numpy(), x_m.numpy()), name  # written in place
        with pytest.raises(RuntimeError, match="between 0 and 1"):  # checked even when not training
            getattr(minitorch, name)(x_m, 1.5, False)


def test_in_place_activations_and_rrelu() -> None:
    x_t, x_m = pair(4, 5)
    for name, args in (("celu_", (0.5,)), ("selu_", ()), ("threshold_", (0.1, -2.0)), ("rrelu_", (0.1, 0.3))):
        y_t, y_m = x_t.clone(), x_m.clone()
        assert getattr(minitorch, name)(y_m, *args) is y_m
        getattr(torch, name)(y_t, *args)
        check(y_m, y_t)
    g = minitorch.Generator().manual_seed(1)
    y = minitorch.rrelu(x_m, 0.1, 0.3, True, g)
    slope = (y / x_m).numpy()[x_m.numpy() < 0]
    assert ((slope >= 0.1 - 1e-6) & (slope <= 0.3 + 1e-6)).all()
    check(minitorch.rrelu(x_m, 0.1, 0.3, True, minitorch.Generator().manual_seed(1)), torch.tensor(y.numpy()))


@pytest.fixture
def restore_settings(monkeypatch):
    """Put minitorch's and torch's switches back after the test."""
    for name in ("_threads", "_interop_threads", "_deterministic", "_deterministic_warn_only",
                 "_matmul_precision", "_anomaly_enabled", "_anomaly_check_nan"):  # fmt: skip
        monkeypatch.setattr(runtime_settings, name, getattr(runtime_settings, name))
    threads, numba_threads = torch.get_num_threads(), minitorch.get_num_threads()
    yield
    torch.set_num_threads(threads)
    minitorch.set_num_threads(numba_threads)
    torch.use_deterministic_algorithms(False)
    torch.set_float32_matmul_precision("highest")
    torch.set_anomaly_enabled(False)


def test_runtime_switches_answer_as_torch(restore_settings) -> None:
    calls = [
        ("use_deterministic_algorithms", (True,), {"warn_only": True}),
        ("set_deterministic_debug_mode", ("error",), {}),
        ("set_deterministic_debug_mode", (True,), {}),  # bool is an int: 1, warn
        ("use_deterministic_algorithms", (False,), {"warn_only": True}),
        ("set_float32_matmul_precision", ("medium",), {}),
        ("set_anomaly_enabled", (True, False), {}),
        ("set_num_threads", (1,), {}),
    ]
    queries = ["are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
               "get_deterministic_debug_mode", "get_float32_matmul_precision", "is_anomaly_enabled",
               "is_anomaly_check_nan_enabled", "get_num_threads"]  # fmt: skip
    for name, args, kwargs in calls:
        getattr(minitorch, name)(*args, **kwargs)
        getattr(torch, name)(*args, **kwargs)
        assert [getattr(minitorch, q)() for q in queries] == [getattr(torch, q)() for q in queries], name
    import numba

    assert numba.get_num_threads() == 1  # the Numba backend's pool follows set_num_threads
    assert minitorch.init_num_threads() is None and minitorch.thread_safe_generator() is None


def test_runtime_switches_refuse_bad_input_as_torch(restore_settings) -> None:
    bad = [
        ("set_num_threads", 0, RuntimeError), ("set_num_threads", 2.0, RuntimeError),
        ("set_num_interop_threads", -1, RuntimeError), ("use_deterministic_algorithms", 1, TypeError),
        ("set_deterministic_debug_mode", 3, RuntimeError),
        ("set_deterministic_debug_mode", "x", RuntimeError),
        ("set_deterministic_debug_mode", 1.0, TypeError), ("set_float32_matmul_precision", 3, RuntimeError),
        ("set_anomaly_enabled", 1, TypeError),
    ]  # fmt: skip
    for name, value, error in bad:
        with pytest.raises(error):
            getattr(torch, name)(value)
        with pytest.raises(error):
            getattr(minitorch, name)(value)
    with pytest.warns(UserWarning, match="no effect"):  # an unknown precision warns and is ignored
        minitorch.set_float32_matmul_precision("bogus")
    assert minitorch.get_float32_matmul_precision() == "highest"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.set_num_threads(64)  # above Numba's pool: capped there, answered as asked
    assert minitorch.get_num_threads() == 64
    minitorch.set_num_interop_threads(3)
    assert minitorch.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="interop"):  # once only, as PyTorch's pool
        minitorch.set_num_interop_threads(2)


def test_constant_pad_nd_pads_and_crops_as_torch():
    t, m = pair(2, 3, 4)
    for widths, value in (((1, 2), 1.5), ((-1, 1, 2, -2), 0), ((0, 0, 0, 0, 1, 1), -3)):
        check(
            minitorch.constant_pad_nd(m.transpose(1, 2), widths, value),
            torch.constant_pad_nd(t.transpose(1, 2), widths, value),
        )
    with pytest.raises(TypeError):
        minitorch.constant_pad_nd(m, (1, 1), "a")
    with pytest.raises(TypeError):
        minitorch.constant_pad_nd([1.0], (1, 1))


def test_ctc_loss_takes_aten_integer_reductions_and_returns_each_loss_by_default():
    logits = RNG.standard_normal((6, 2, 4)).astype(np.float32)
    log_probs = torch.tensor(logits).log_softmax(2)
    targets = torch.tensor([[1, 2], [3, 3]])
    lengths = ([6, 5], [2, 1])
    ours = minitorch.tensor(log_probs.numpy()), minitorch.tensor(targets.numpy())
    check(minitorch.ctc_loss(*ours, *lengths), torch.ctc_loss(log_probs, targets, *lengths))
    for reduction in (0, 1, 2):
        check(
            minitorch.ctc_loss(*ours, *lengths, 0, reduction),
            torch.ctc_loss(log_probs, targets, *lengths, 0, reduction),
        )
    with pytest.raises(TypeError):
        minitorch.ctc_loss(*ours, *lengths, 0, "mean")
