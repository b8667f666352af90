"""The rest of PyTorch's ``torch.*`` functions: everything beyond the core that
``minitorch/__init__.py`` names itself (factories, dtypes, the arithmetic, reductions
and shape ops of the first chapters).

Each name comes from the module of the ops layer (or of ``nn.functional``, for the ATen
twins of ``F``'s functions) that owns it, so this file is only a table: which name of the
``torch`` namespace is which function. The package root takes every name here with
``from minitorch.torch_functions import *``, then gives each PyTorch's calling conventions
(keyword names, ``out=``).
"""

# ruff: noqa: F401 (every import here is re-exported by minitorch/__init__.py)

from minitorch.functional import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    chain_matmul,
    tensordot,
)  # fmt: skip
from minitorch.nn.functional.grid_sample import grid_sampler_2d, grid_sampler_3d  # torch.grid_sampler_2d/3d
from minitorch.nn.functional.native_norms import *  # noqa: F403 (native_batch_norm...: ATen kernels OpInfo tests)
from minitorch.nn.functional.torch_forms import *  # noqa: F403 (torch.conv2d, torch.dropout...: F's ATen twins)
from minitorch.ops.aliases import (
    absolute,
    arccosh,
    arcsinh,
    arctanh,
    greater,
    greater_equal,
    less,
    less_equal,
    not_equal,
    positive,
    sgn,
    swapaxes,
    swapdims,
)
from minitorch.ops.binary import arctan2, atan2, bitwise_left_shift, bitwise_right_shift
from minitorch.ops.cholesky import cholesky_inverse, cholesky_solve
from minitorch.ops.cholesky import torch_cholesky as cholesky
from minitorch.ops.composite import (
    addcdiv,
    addcmul,
    clamp_max,
    clamp_min,
    diff,
    index_fill,
    lerp,
    outer,
    scatter,
)
from minitorch.ops.composite import outer as ger
from minitorch.ops.covariance import corrcoef, cov, cumulative_trapezoid, trapezoid, trapz
from minitorch.ops.cross import cross
from minitorch.ops.diagonals import diag, diag_embed, diagonal, tril, triu
from minitorch.ops.exp_log_formulas import (
    deg2rad,
    exp2,
    hypot,
    logaddexp,
    logaddexp2,
    logit,
    rad2deg,
    sinc,
    xlogy,
)
from minitorch.ops.finite_differences import gradient
from minitorch.ops.float_parts import (
    angle,
    copysign,
    fix,
    float_power,
    fmax,
    fmin,
    fmod,
    frac,
    frexp,
    gcd,
    heaviside,
    isneginf,
    isposinf,
    isreal,
    lcm,
    ldexp,
    nextafter,
    signbit,
    trunc,
)
from minitorch.ops.grids import (
    combinations,
    empty_strided,
    logspace,
    range,
    scalar_tensor,
    tril_indices,
    triu_indices,
    vander,
)
from minitorch.ops.histogram import bincount, histc, histogram, histogramdd, searchsorted
from minitorch.ops.householder import geqrf, orgqr, ormqr
from minitorch.ops.index_positions import *  # noqa: F403 (unravel_index, index_reduce, nonzero_static...)
from minitorch.ops.index_update import (
    argwhere,
    bucketize,
    count_nonzero,
    index_add,
    index_copy,
    index_put,
    isin,
    masked_scatter,
    masked_select,
    put,
    scatter_reduce,
    take,
    take_along_dim,
)  # fmt: skip
from minitorch.ops.legacy_norms import *  # noqa: F403 (frobenius_norm, nuclear_norm, norm_except_dim)
from minitorch.ops.log_tan_round import log2, log10, round, tan
from minitorch.ops.lowrank import pca_lowrank, svd_lowrank
from minitorch.ops.lu import lu, lu_solve, lu_unpack
from minitorch.ops.lu_composites import logdet, slogdet
from minitorch.ops.matrix_exp import matrix_exp
from minitorch.ops.median import median
from minitorch.ops.meshgrid import meshgrid
from minitorch.ops.method_forms import *  # noqa: F403 (logical_xor, rsub, fill, adjoint, numel...)
from minitorch.ops.namespace_forms import *  # noqa: F403 (asarray, frombuffer, can_cast, detach)
from minitorch.ops.products import (
    addbmm,
    addmm,
    addmv,
    addr,
    baddbmm,
    dist,
    inner,
    kron,
    matrix_power,
    trace,
    vdot,
)  # fmt: skip
from minitorch.ops.pseudoinverse import pinverse
from minitorch.ops.qr import qr
from minitorch.ops.rearrange import movedim, roll, tile
from minitorch.ops.rearrange import movedim as moveaxis
from minitorch.ops.runs import narrow_copy, repeat_interleave, unique_consecutive
from minitorch.ops.scan import cumprod, cumsum
from minitorch.ops.special_math import (
    acosh,
    asinh,
    atanh,
    digamma,
    erfc,
    erfinv,
    expm1,
    i0,
    lgamma,
    mvlgamma,
)
from minitorch.ops.stacking import (
    broadcast_to,
    column_stack,
    diagflat,
    diagonal_scatter,
    dsplit,
    dstack,
    fliplr,
    flipud,
    hsplit,
    hstack,
    ravel,
    rot90,
    row_stack,
    select_scatter,
    slice_scatter,
    split_with_sizes,
    tensor_split,
    vsplit,
    vstack,
)  # fmt: skip
from minitorch.ops.statistics import (
    aminmax,
    cummax,
    cummin,
    kthvalue,
    logcumsumexp,
    mode,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    quantile,
    std_mean,
    var_mean,
)  # fmt: skip
from minitorch.ops.triangular import triangular_solve
from minitorch.ops.trigonometric import acos, arccos, arcsin, arctan, asin, atan, cosh, sinh
from minitorch.ops.unary import erf, nan_to_num
from minitorch.ops.zeta_gamma import igamma, igammac, polygamma
