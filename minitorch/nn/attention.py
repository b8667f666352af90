"""``MultiheadAttention``: the layer that holds the projections of multi-head attention
(the computation, and what the heads are, is in
``minitorch/nn/functional/multi_head_attention.py``).

Parameters, named as in PyTorch: ``in_proj_weight`` ``[3E, E]`` (the query, key and
value projections stacked; or ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight``
when ``kdim``/``vdim`` differ from ``embed_dim``), ``in_proj_bias`` ``[3E]``, the output
projection ``out_proj`` (a ``Linear``), and with ``add_bias_kv`` one learned extra key and
value, ``bias_k`` and ``bias_v``.

Initialisation is PyTorch's, in PyTorch's order, so the same seed gives the same
layer: ``out_proj`` is made first (a ``Linear``, with its own initialisation), then the
input projections are Xavier-uniform, the biases zero, and ``bias_k``/``bias_v``
Xavier-normal.
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn import init
from minitorch.nn.functional.multi_head_attention import multi_head_attention_forward
from minitorch.nn.linear import Linear
from minitorch.nn.module import Module, Parameter


class MultiheadAttention(Module):
    """``forward(query, key, value)`` -> ``(output, weights)``; inputs ``[L, N, E]``
    (``[N, L, E]`` with ``batch_first=True``) or ``[L, E]`` unbatched."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")  # fmt: skip
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        like = {"device": device, "dtype": dtype}
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(creation.empty(3 * embed_dim, embed_dim, **like))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(creation.empty(embed_dim, embed_dim, **like))
            self.k_proj_weight = Parameter(creation.empty(embed_dim, self.kdim, **like))
            self.v_proj_weight = Parameter(creation.empty(embed_dim, self.vdim, **like))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(creation.empty(3 * embed_dim, **like))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, **like)
        if add_bias_kv:
            self.bias_k = Parameter(creation.empty(1, 1, embed_dim, **like))
            self.bias_v = Parameter(creation.empty(1, 1, embed_dim, **like))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:  # fmt: skip
        batch_first = self.batch_first and isinstance(query, Tensor) and query.ndim == 3
        if batch_first:
            query, key, value = (t.transpose(0, 1) if isinstance(t, Tensor) else t
                                 for t in (query, key, value))  # fmt: skip
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal,
        )  # fmt: skip
        return (output.transpose(0, 1) if batch_first else output), weights
