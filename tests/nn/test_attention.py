"""``scaled_dot_product_attention``, ``MultiheadAttention`` and the Transformer layers
against PyTorch: the same seed gives the same parameters, and with the same weights the
outputs, attention weights and gradients agree, with every kind of mask, batch first or
not, unbatched, pre- and post-norm, float32 and float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import minitorch as mt
import minitorch.nn.functional as F
from tests.nn.dropout_streams import same_dropout_masks
from tests.nn.twins import assert_close, copy_weights


def twins(*arrays: np.ndarray) -> tuple[list, list]:
    ours = [mt.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
    return ours, theirs


def backward_both(got: Any, expected: Any, ours: list, theirs: list, tol: float | None = None) -> None:
    """Forward values agree; then the gradients of every float input for one upstream."""
    assert_close(got, expected, tol, "forward")
    upstream = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    upstream = upstream.astype(expected.detach().numpy().dtype)
    (got * mt.tensor(upstream)).sum().backward()
    (expected * torch.tensor(upstream)).sum().backward()
    for mine, ref in zip(ours, theirs):
        if ref.requires_grad:
            assert_close(mine.grad, ref.grad, tol, "grad of an input")


def same_parameters(ours: mt.nn.Module, theirs: torch.nn.Module) -> None:
    names = [n for n, _ in ours.named_parameters()]
    assert names == [n for n, _ in theirs.named_parameters()]
    for (name, mine), (_, ref) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert np.array_equal(mine.detach().numpy(), ref.detach().numpy()), name


RNG = np.random.default_rng(0)
Q, K, V = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 5)))
BOOL_MASK = RNG.random((4, 6)) > 0.3
BOOL_MASK[1] = False  # a query that may see no key: zeros, not NaN
FLOAT_MASK = RNG.standard_normal((2, 1, 4, 6)).astype(np.float32)


@pytest.mark.parametrize("case", ["plain", "causal", "bool_mask", "float_mask", "scale", "float64",
                                  "non_contiguous", "square_causal"])  # fmt: skip
def test_sdpa_matches_pytorch(case: str) -> None:
    q, k, v = Q, K, V
    kwargs: dict = {}
    if case == "causal":
        kwargs["is_causal"] = True
    if case == "square_causal":
        k, v, kwargs["is_causal"] = K[:, :, :4], V[:, :, :4], True
    if case == "scale":
        kwargs["scale"] = 0.3
    if case == "float64":
        q, k, v = (a.astype(np.float64) for a in (q, k, v))
    ours, theirs = twins(q, k, v)
    if case == "non_contiguous":  # a query stored [N, L, heads, E] and viewed as [N, heads, L, E]
        stored = q.transpose(0, 2, 1, 3).copy()
        ours[0] = mt.tensor(stored, requires_grad=True)
        theirs[0] = torch.tensor(stored, requires_grad=True)
        got = F.scaled_dot_product_attention(ours[0].transpose(1, 2), *ours[1:])
        expected = torch.nn.functional.scaled_dot_product_attention(theirs[0].transpose(1, 2), *theirs[1:])
        backward_both(got, expected, ours, theirs)
        return
    mask_ours, mask_theirs = {}, {}
    if case == "bool_mask":
        mask_ours, mask_theirs = {"attn_mask": mt.tensor(BOOL_MASK)}, {"attn_mask": torch.tensor(BOOL_MASK)}
    if case == "float_mask":
        mask_ours, mask_theirs = {"attn_mask": mt.tensor(FLOAT_MASK)}, {"attn_mask": torch.tensor(FLOAT_MASK)}
    got = F.scaled_dot_product_attention(*ours, **kwargs, **mask_ours)
    expected = torch.nn.functional.scaled_dot_product_attention(*theirs, **kwargs, **mask_theirs)
    backward_both(got, expected, ours, theirs)


def test_sdpa_grouped_query_attention_and_unbatched() -> None:
    ours, theirs = twins(Q, K[:, :1], V[:, :1])
    got = F.scaled_dot_product_attention(*ours, enable_gqa=True)
    expected = torch.nn.functional.scaled_dot_product_attention(*theirs, enable_gqa=True)
    backward_both(got, expected, ours, theirs)
    ours, theirs = twins(Q[0, 0], K[0, 0], V[0, 0])
    got = F.scaled_dot_product_attention(*ours, is_causal=True)
    expected = torch.nn.functional.scaled_dot_product_attention(*theirs, is_causal=True)
    backward_both(got, expected, ours, theirs)


@same_dropout_masks
def test_sdpa_dropout_draws_pytorchs_mask() -> None:
    ours, theirs = twins(Q, K, V)
    mt.manual_seed(5)
    torch.manual_seed(5)
    got = F.scaled_dot_product_attention(*ours, dropout_p=0.4)
    assert_close(got, torch.nn.functional.scaled_dot_product_attention(*theirs, dropout_p=0.4))


def test_sdpa_refuses_bad_inputs() -> None:
    q, k, v = (mt.tensor(a) for a in (Q, K, V))
    with pytest.raises(TypeError):
        F.scaled_dot_product_attention(None, k, v)
    with pytest.raises(RuntimeError, match="is_causal"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mt.tensor(BOOL_MASK), is_causal=True)
    with pytest.raises(RuntimeError, match="dtype"):
        F.scaled_dot_product_attention(q, k.double(), v)
    with pytest.raises(RuntimeError, match="feature"):
        F.scaled_dot_product_attention(q, k[..., :3], v)


MHA_OPTIONS = [{}, {"add_bias_kv": True, "add_zero_attn": True}, {"kdim": 3, "vdim": 5},
               {"batch_first": True, "bias": False}]  # fmt: skip


@pytest.mark.parametrize("options", MHA_OPTIONS)
def test_mha_same_seed_gives_pytorchs_parameters(options: dict) -> None:
    mt.manual_seed(1)
    torch.manual_seed(1)
    same_parameters(mt.nn.MultiheadAttention(8, 2, **options), torch.nn.MultiheadAttention(8, 2, **options))


def mha_inputs(options: dict, dtype: Any = np.float32) -> list[np.ndarray]:
    rng = np.random.default_rng(2)
    shapes = [(4, 2, 8), (6, 2, options.get("kdim", 8)), (6, 2, options.get("vdim", 8))]
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [a.transpose(1, 0, 2).copy() for a in arrays] if options.get("batch_first") else arrays


PADDING = np.zeros((2, 6), dtype=bool)
PADDING[0, 4:] = True
CAUSAL_LIKE = np.triu(np.ones((4, 6), dtype=bool), 1)


@pytest.mark.parametrize("options", MHA_OPTIONS)
@pytest.mark.parametrize("masks", ["none", "padding", "bool_attn_no_weights", "float_attn_per_head"])
def test_mha_matches_pytorch(options: dict, masks: str) -> None:
    ours_layer = mt.nn.MultiheadAttention(8, 2, **options)
    theirs_layer = torch.nn.MultiheadAttention(8, 2, **options)
    copy_weights(ours_layer, theirs_layer)
    extra: dict = {}
    if masks == "padding":
        extra = {"key_padding_mask": PADDING}
    if masks == "bool_attn_no_weights":
        extra = {"attn_mask": CAUSAL_LIKE, "need_weights": False}
    if masks == "float_attn_per_head":
        extra = {"attn_mask": np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32),
                 "key_padding_mask": PADDING.astype(np.float32) * -1e9,
                 "average_attn_weights": False}  # fmt: skip
    ours, theirs = twins(*mha_inputs(options))
    mine = {k: v if isinstance(v, bool) else mt.tensor(v) for k, v in extra.items()}
    reference = {k: v if isinstance(v, bool) else torch.tensor(v) for k, v in extra.items()}
    got, got_weights = ours_layer(*ours, **mine)
    expected, weights = theirs_layer(*theirs, **reference)
    if weights is None:
        assert got_weights is None
    else:
        assert_close(got_weights, weights, what="attention weights")
    backward_both(got, expected, ours, theirs)
    for name, param in theirs_layer.named_parameters():
        assert_close(dict(ours_layer.named_parameters())[name].grad, param.grad, what=f"grad of {name}")


def test_mha_unbatched_float64_and_eval_dropout() -> None:
    ours_layer = mt.nn.MultiheadAttention(8, 4, dropout=0.5, dtype=mt.float64).eval()
    theirs_layer = torch.nn.MultiheadAttention(8, 4, dropout=0.5, dtype=torch.float64).eval()
    copy_weights(ours_layer, theirs_layer)
    x = np.random.default_rng(4).standard_normal((5, 8))
    ours, theirs = twins(x)
    got, got_weights = ours_layer(ours[0], ours[0], ours[0], key_padding_mask=mt.tensor(PADDING[0, :5]))
    padding = torch.tensor(PADDING[0, :5])
    expected, weights = theirs_layer(theirs[0], theirs[0], theirs[0], key_padding_mask=padding)
    assert_close(got_weights, weights)
    backward_both(got, expected, ours, theirs)


@same_dropout_masks
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_training_dropout_draws_pytorchs_masks(need_weights: bool) -> None:
    ours_layer = mt.nn.MultiheadAttention(8, 2, dropout=0.3)
    theirs_layer = torch.nn.MultiheadAttention(8, 2, dropout=0.3)
    copy_weights(ours_layer, theirs_layer)
    ours, theirs = twins(*mha_inputs({}))
    mt.manual_seed(4)
    torch.manual_seed(4)
    got = ours_layer(*ours, need_weights=need_weights)[0]
    backward_both(got, theirs_layer(*theirs, need_weights=need_weights)[0], ours, theirs)


def test_mha_refuses_bad_arguments() -> None:
    with pytest.raises(AssertionError, match="divisible"):
        mt.nn.MultiheadAttention(6, 4)
    with pytest.raises(ValueError):
        mt.nn.MultiheadAttention(0, 2)
    layer = mt.nn.MultiheadAttention(8, 2)
    x = mt.randn(4, 2, 8)
    with pytest.raises(RuntimeError, match="attn_mask"):
        layer(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match="shape of the 2D attn_mask"):
        layer(x, x, x, attn_mask=mt.zeros(3, 4))
    with pytest.raises(AssertionError, match="key_padding_mask"):
        layer(x, x, x, key_padding_mask=mt.zeros(2, 3, dtype=mt.bool))
    with pytest.raises(TypeError):
        layer(None, x, x)


LAYER_OPTIONS = [{}, {"norm_first": True, "activation": "gelu", "batch_first": True}]


@pytest.mark.parametrize("options", LAYER_OPTIONS)
def test_transformer_same_seed_gives_pytorchs_parameters(options: dict) -> None:
    mt.manual_seed(3)
    torch.manual_seed(3)
    same_parameters(mt.nn.Transformer(8, 2, 2, 1, 16, **options),
                    torch.nn.Transformer(8, 2, 2, 1, 16, **options))  # fmt: skip
    same_parameters(mt.nn.TransformerEncoderLayer(8, 2, 16), torch.nn.TransformerEncoderLayer(8, 2, 16))


def sequences(batch_first: bool, *lengths: int) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((n, 2, 8)).astype(np.float32) for n in lengths]
    return [a.transpose(1, 0, 2).copy() for a in arrays] if batch_first else arrays


@pytest.mark.parametrize("options", LAYER_OPTIONS)
def test_encoder_with_causal_mask_and_padding(options: dict) -> None:
    layer_ours = mt.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, **options)
    layer_theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, **options)
    norm = (mt.nn.LayerNorm(8), torch.nn.LayerNorm(8))
    ours_model = mt.nn.TransformerEncoder(layer_ours, 2, norm[0]).eval()
    theirs_model = torch.nn.TransformerEncoder(layer_theirs, 2, norm[1], enable_nested_tensor=False).eval()
    copy_weights(ours_model, theirs_model)
    ours, theirs = twins(*sequences(options.get("batch_first", False), 5))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    padding = np.zeros((2, 5), dtype=bool)
    padding[1, 3:] = True
    got = ours_model(ours[0], mask=mt.nn.Transformer.generate_square_subsequent_mask(5),
                     src_key_padding_mask=mt.tensor(padding), is_causal=True)  # fmt: skip
    expected = theirs_model(theirs[0], mask=mask, src_key_padding_mask=torch.tensor(padding), is_causal=True)
    backward_both(got, expected, ours, theirs, tol=1e-4)


@pytest.mark.parametrize("options", LAYER_OPTIONS)
def test_transformer_matches_pytorch(options: dict) -> None:
    ours_model = mt.nn.Transformer(8, 2, 1, 2, 16, **options).eval()
    theirs_model = torch.nn.Transformer(8, 2, 1, 2, 16, **options).eval()
    copy_weights(ours_model, theirs_model)
    ours, theirs = twins(*sequences(options.get("batch_first", False), 5, 4))
    padding = np.zeros((2, 5), dtype=bool)
    padding[0, 4:] = True
    got = ours_model(*ours, tgt_mask=mt.nn.Transformer.generate_square_subsequent_mask(4),
                     memory_key_padding_mask=mt.tensor(padding))  # fmt: skip
    expected = theirs_model(*theirs, tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4),
                            memory_key_padding_mask=torch.tensor(padding))  # fmt: skip
    backward_both(got, expected, ours, theirs, tol=1e-4)
    for name, param in theirs_model.named_parameters():
        assert_close(dict(ours_model.named_parameters())[name].grad, param.grad, 1e-4, f"grad of {name}")


def test_decoder_layer_unbatched_and_square_mask() -> None:
    ours_layer = mt.nn.TransformerDecoderLayer(8, 2, 16).eval()
    theirs_layer = torch.nn.TransformerDecoderLayer(8, 2, 16).eval()
    copy_weights(ours_layer, theirs_layer)
    rng = np.random.default_rng(6)
    ours, theirs = twins(*(rng.standard_normal((n, 8)).astype(np.float32) for n in (3, 5)))
    backward_both(ours_layer(*ours), theirs_layer(*theirs), ours, theirs, tol=1e-4)
    mask = mt.nn.Transformer.generate_square_subsequent_mask(3, dtype=mt.float64)
    assert mask.dtype == mt.float64
    reference = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    assert np.array_equal(mask.numpy(), reference.numpy())


@same_dropout_masks
@pytest.mark.parametrize("options", [
    LAYER_OPTIONS[0],
    {"norm_first": True, "activation": "gelu"},
    LAYER_OPTIONS[1],  # batch_first: dropout meets transposed views, drawn in memory order
])  # fmt: skip
def test_training_dropout_draws_pytorchs_masks(options: dict) -> None:
    ours_model = mt.nn.Transformer(8, 2, 1, 1, 16, dropout=0.3, **options)
    theirs_model = torch.nn.Transformer(8, 2, 1, 1, 16, dropout=0.3, **options)
    copy_weights(ours_model, theirs_model)
    ours, theirs = twins(*sequences(options.get("batch_first", False), 5, 4))
    mt.manual_seed(6)
    torch.manual_seed(6)
    backward_both(ours_model(*ours), theirs_model(*theirs), ours, theirs, tol=1e-4)


def test_transformer_refuses_mismatched_inputs() -> None:
    model = mt.nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="batch number"):
        model(mt.randn(5, 2, 8), mt.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="d_model"):
        model(mt.randn(5, 2, 8), mt.randn(4, 2, 6))
    with pytest.raises(RuntimeError, match="relu/gelu"):
        mt.nn.TransformerEncoderLayer(8, 2, activation="swish")
