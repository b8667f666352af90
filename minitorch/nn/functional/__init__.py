"""``minitorch.nn.functional`` (``import minitorch.nn.functional as F``): the operations
of the layers, as plain functions of tensors (the layers in ``minitorch.nn`` hold the
weights and call these).

| file                | functions                                                  |
| ------------------- | ---------------------------------------------------------- |
| ``activation.py``   | ``relu``, ``leaky_relu``, ``gelu``, ``softmax``, ...         |
| ``activation_family.py`` | ``hardtanh``, ``elu``, ``selu``, ``softplus``, ``prelu``, ``glu``, ... |
| ``linear.py``       | ``linear``, ``dropout``, ``embedding``, ``one_hot``          |
| ``conv.py``         | ``conv1d``, ``conv2d``, ``conv3d``, ``unfold``, ``fold``, ``pad`` |
| ``conv_transpose.py`` | ``conv_transpose1d``, ``conv_transpose2d``, ``conv_transpose3d`` |
| ``channel_dropout.py`` | ``dropout1d/2d/3d``, ``alpha_dropout``, ``feature_alpha_dropout`` |
| ``adaptive_pooling.py`` | ``adaptive_avg_pool1d/3d``, ``adaptive_max_pool1d/2d/3d`` (any output size) |
| ``lp_pooling.py``   | ``lp_pool1d``, ``lp_pool2d``, ``lp_pool3d``                  |
| ``max_unpooling.py`` | ``max_unpool1d``, ``max_unpool2d``, ``max_unpool3d``         |
| ``affine_grid.py``  | ``affine_grid`` (a spatial transformer's sampling grid)      |
| ``grid_sample.py``  | ``grid_sample`` (reading an image at a grid's positions), ``grid_sampler_2d/3d`` |
| ``fractional_max_pooling.py`` | ``fractional_max_pool2d/3d`` (and ``_with_indices``)   |
| ``distance.py``     | ``cosine_similarity``, ``pairwise_distance``, ``pdist``      |
| ``bilinear.py``     | ``bilinear``                                               |
| ``channel_shuffle.py`` | ``channel_shuffle``                                     |
| ``gumbel_softmax.py`` | ``gumbel_softmax``                                       |
| ``inplace_activations.py`` | ``relu_``, ``elu_``, ``hardtanh_``, ``threshold_``, ...   |
| ``padding_modes.py`` | ``pad``'s reflect, replicate and circular modes             |
| ``embedding_bag.py`` | ``embedding_bag``                                          |
| ``interpolate.py``  | ``interpolate``, ``upsample``, ``pixel_shuffle``, ``pixel_unshuffle`` |
| ``pooling.py``      | ``max_pool2d``, ``avg_pool2d`` (and 1-D, 3-D forms, ``ceil_mode``) |
| ``normalization.py``| ``batch_norm``, ``layer_norm``                              |
| ``sample_normalization.py`` | ``group_norm``, ``instance_norm``, ``rms_norm``, ``normalize``, ... |
| ``native_norms.py`` | ``native_batch_norm``, ``native_layer_norm``, ``native_group_norm``, ...  |
| ``attention.py``    | ``scaled_dot_product_attention``                             |
| ``multi_head_attention.py`` | ``multi_head_attention_forward`` (``nn.MultiheadAttention``'s computation) |
| ``regression_loss.py`` | ``huber_loss``, ``smooth_l1_loss``, ``kl_div``, ``poisson_nll_loss``, ... |
| ``margin_loss.py``  | ``triplet_margin_loss``, ``cosine_embedding_loss``, ...     |
| ``loss.py``         | ``mse_loss``, ``l1_loss``, ``cross_entropy``, ``nll_loss``  |
| ``ctc_loss.py``     | ``ctc_loss`` (the forward algorithm over the blank-extended target) |
| ``linear_cross_entropy.py`` | ``linear_cross_entropy`` (``cross_entropy`` of ``linear``) |
| ``binary_loss.py``  | ``binary_cross_entropy``, ``binary_cross_entropy_with_logits`` |
"""

from minitorch.nn.functional.activation import (
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    tanh,
)
from minitorch.nn.functional.activation_family import (
    celu,
    elu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    logsigmoid,
    mish,
    prelu,
    relu6,
    rrelu,
    selu,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
)  # fmt: skip
from minitorch.nn.functional.adaptive_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
)
from minitorch.nn.functional.affine_grid import affine_grid
from minitorch.nn.functional.attention import scaled_dot_product_attention
from minitorch.nn.functional.bilinear import bilinear
from minitorch.nn.functional.binary_loss import binary_cross_entropy, binary_cross_entropy_with_logits
from minitorch.nn.functional.channel_dropout import (
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from minitorch.nn.functional.channel_shuffle import channel_shuffle, native_channel_shuffle
from minitorch.nn.functional.conv import conv1d, conv2d, conv3d, fold, pad, unfold
from minitorch.nn.functional.conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from minitorch.nn.functional.ctc_loss import ctc_loss
from minitorch.nn.functional.distance import cosine_similarity, pairwise_distance, pdist
from minitorch.nn.functional.embedding_bag import embedding_bag
from minitorch.nn.functional.fractional_max_pooling import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from minitorch.nn.functional.grid_sample import grid_sample
from minitorch.nn.functional.gumbel_softmax import gumbel_softmax
from minitorch.nn.functional.inplace_activations import (
    celu_,
    elu_,
    hardtanh_,
    leaky_relu_,
    relu_,
    rrelu_,
    selu_,
    threshold_,
)
from minitorch.nn.functional.interpolate import (
    interpolate,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from minitorch.nn.functional.linear import dropout, embedding, flatten, linear, one_hot
from minitorch.nn.functional.linear_cross_entropy import linear_cross_entropy
from minitorch.nn.functional.loss import (
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from minitorch.nn.functional.lp_pooling import lp_pool1d, lp_pool2d, lp_pool3d
from minitorch.nn.functional.margin_loss import (
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from minitorch.nn.functional.max_unpooling import max_unpool1d, max_unpool2d, max_unpool3d
from minitorch.nn.functional.multi_head_attention import multi_head_attention_forward
from minitorch.nn.functional.normalization import batch_norm, layer_norm
from minitorch.nn.functional.pooling import (
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
)
from minitorch.nn.functional.regression_loss import (
    gaussian_nll_loss,
    huber_loss,
    kl_div,
    poisson_nll_loss,
    smooth_l1_loss,
)
from minitorch.nn.functional.sample_normalization import (
    group_norm,
    instance_norm,
    local_response_norm,
    normalize,
    rms_norm,
)

__all__ = [
    "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cross_entropy", "dropout",
    "embedding", "flatten", "fold", "gelu", "l1_loss", "layer_norm", "leaky_relu", "linear",
    "log_softmax", "max_pool1d", "max_pool2d", "mse_loss", "nll_loss", "one_hot", "pad",
    "relu", "sigmoid", "silu", "softmax", "tanh", "unfold",
    "multi_head_attention_forward", "scaled_dot_product_attention",
    "celu", "elu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "logsigmoid",
    "mish", "prelu", "relu6", "rrelu", "selu", "softmin", "softplus", "softshrink", "softsign",
    "tanhshrink", "threshold",
    "conv_transpose1d", "conv_transpose2d",
    "group_norm", "instance_norm", "local_response_norm", "normalize", "rms_norm",
    "gaussian_nll_loss", "huber_loss", "kl_div", "poisson_nll_loss", "smooth_l1_loss",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "multilabel_soft_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "interpolate", "pixel_shuffle", "pixel_unshuffle", "upsample", "embedding_bag",
    "upsample_bilinear", "upsample_nearest", "multi_margin_loss", "multilabel_margin_loss",
    "triplet_margin_with_distance_loss",
    "alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout",
    "bilinear", "channel_shuffle", "native_channel_shuffle", "cosine_similarity",
    "pairwise_distance", "pdist", "gumbel_softmax", "celu_", "elu_", "hardtanh_", "leaky_relu_",
    "relu_", "rrelu_", "selu_", "threshold_",
    "adaptive_avg_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d",
    "max_unpool1d", "max_unpool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "conv3d", "avg_pool3d", "max_pool3d", "max_pool3d_with_indices",
    "lp_pool3d", "max_unpool3d", "conv_transpose3d", "affine_grid",
    "ctc_loss", "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "grid_sample", "linear_cross_entropy",
]  # fmt: skip
