"""minitorch: a readable, fast, visible tensor library with PyTorch's API.

    import minitorch as torch
    x = torch.randn(3, 4, requires_grad=True)
    loss = (x @ x.T).relu().sum()
    loss.backward()

Where each concept lives (see docs/architecture.md): ``layout.py`` (shape, strides, offset),
``dtypes.py``, ``device.py``, ``backends/`` (kernels), ``scalar_ops.py`` (the elementwise
op table), ``dispatch/`` (which kernel runs), ``_tensor.py`` (the Tensor),
``autograd/`` (backward), ``ops/`` (every differentiable op); ``torch_functions.py`` names
the rest of ``torch.*`` beyond the core this file imports.
"""

from minitorch import dispatch, layout
from minitorch._tensor import Size, Tensor, is_tensor
from minitorch.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minitorch.creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from minitorch.device import device, get_default_device, set_default_device
from minitorch.dispatch import backend, get_backend, set_backend
from minitorch.dtypes import (
    bfloat16,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
)
from minitorch.dtypes import (
    bool_ as bool,  # noqa: A004 (PyTorch's name: minitorch.bool)
)
from minitorch.legacy_constructors import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from minitorch.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from minitorch.ops import binary as _binary
from minitorch.ops import indexing as _indexing
from minitorch.ops import linalg as _linalg
from minitorch.ops import reduce as _reduce
from minitorch.ops import shape as _shape
from minitorch.ops import unary as _unary
from minitorch.random import (
    Generator,
    default_generator,
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from minitorch.random_factories import (
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
)

float = float32  # noqa: A001 (PyTorch's alias)
double = float64
long = int64
int = int32  # noqa: A001
half = float16
short = int16

# functional forms: minitorch.exp(x) is x.exp()
from minitorch.ops.binary import (  # noqa: E402
    add,
    div,
    floor_divide,
    mul,
    pow,
    remainder,
    sub,
)  # fmt: skip
from minitorch.ops.choice import clamp, maximum, minimum, where  # noqa: E402
from minitorch.ops.compare import (  # noqa: E402
    allclose,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    eq,
    equal,
    ge,
    gt,
    isclose,
    le,
    logical_and,
    logical_or,
    lt,
    ne,
)  # fmt: skip
from minitorch.ops.count_distributions import binomial, poisson
from minitorch.ops.einsum import einsum  # noqa: E402
from minitorch.ops.gather import gather, index_select, masked_fill, nonzero, scatter_add  # noqa: E402
from minitorch.ops.linalg import bmm, dot, matmul, mm, mv  # noqa: E402
from minitorch.ops.reduce import (  # noqa: E402
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    norm,
    prod,
    std,
    sum,
    var,
)  # fmt: skip
from minitorch.ops.shape import (  # noqa: E402
    as_strided,
    cat,
    chunk,
    clone,
    flatten,
    flip,
    narrow,
    permute,
    reshape,
    select,
    split,
    squeeze,
    stack,
    t,
    transpose,
    unbind,
    unflatten,
    unsqueeze,
)  # fmt: skip
from minitorch.ops.softmax import log_softmax, softmax  # noqa: E402
from minitorch.ops.solve import det  # noqa: E402
from minitorch.ops.solve import inv as inverse  # noqa: E402
from minitorch.ops.sort import argsort, msort, sort, topk, unique  # noqa: E402
from minitorch.ops.svd import svd  # noqa: E402
from minitorch.ops.trigonometric import cos, sin  # noqa: E402
from minitorch.ops.unary import (  # noqa: E402
    abs,
    bitwise_not,
    ceil,
    exp,
    floor,
    isfinite,
    isinf,
    isnan,
    log,
    log1p,
    logical_not,
    neg,
    reciprocal,
    relu,
    rsqrt,
    sigmoid,
    sign,
    sqrt,
    square,
    tanh,
)  # fmt: skip

clip = clamp
concat = concatenate = cat
negative = neg
multiply = mul
divide = div
subtract = sub
true_divide = div

from minitorch import accelerator, autograd, cuda, memory  # memory: the CPU allocator's statistics
from minitorch.memory import OutOfMemoryError  # torch.OutOfMemoryError

__version__ = "0.1.0"
del _binary, _indexing, _linalg, _reduce, _shape, _unary

# neural networks: layers, optimizers, data, save/load
from minitorch import (
    compiler,
    course,
    data,
    distributed,  # torch.distributed: collectives on MPI (mpi4py is imported on first use)
    functional,
    linalg,
    multiprocessing,  # torch.multiprocessing: tensors sent through shared memory
    nn,
    onnx,  # torch.onnx (imports the onnx package only when exporting)
    optim,
    profiler,  # torch.profiler
    special,  # torch.special: ndtr, erfcx, zeta, i1e... (minitorch/special.py)
    testing,
    utils,
)
from minitorch.compiler import compile  # noqa: A004 (PyTorch's name)
from minitorch.printing import set_printoptions
from minitorch.runtime_settings import *  # noqa: F403 (set_num_threads, use_deterministic_algorithms...)
from minitorch.serialization import load, save
from minitorch.torch_functions import *  # noqa: F403 (the rest of torch.*: linalg forms, special math...)


def _install_old_tensor_module_path() -> None:
    """Keep ``from minitorch.tensor import Tensor`` working for one release, with a warning.

    The module was renamed ``_tensor`` (as in PyTorch) because a file ``tensor.py``
    made ``import minitorch.tensor`` replace the function ``minitorch.tensor``. The old
    path is registered in ``sys.modules`` only, so the function is never shadowed.
    """
    import sys
    import types
    import warnings

    from minitorch import _tensor

    old = types.ModuleType("minitorch.tensor", "Deprecated: use minitorch._tensor or minitorch.Tensor.")

    def __getattr__(name: str):  # noqa: N807 (a module's attribute hook)
        if name.startswith("__"):  # inspect and pytest probe __file__ and the like
            raise AttributeError(name)
        warnings.warn(
            "minitorch.tensor (the module) is now minitorch._tensor; import Tensor from minitorch",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_tensor, name)

    old.__getattr__ = __getattr__
    sys.modules.setdefault("minitorch.tensor", old)


_install_old_tensor_module_path()


def _torch_calling_conventions() -> None:
    """Every op and factory above, as ``minitorch.<name>``, takes PyTorch's keyword names
    (``add(input=a, other=b)``) and, where PyTorch's does, ``out=`` (``ops/out.py``)."""
    from minitorch.ops import out
    from minitorch.ops.common import KEEPDIMS_REDUCTIONS, accepts_keepdims
    from minitorch.ops.inplace import NAMESPACE_INPLACE, namespace_function

    namespace = globals()
    for name, value in list(namespace.items()):
        if out.is_functional_form(name, value):
            namespace[name] = out.functional_form(name, value)
        if name in KEEPDIMS_REDUCTIONS:  # NumPy's ``keepdims=`` too, as PyTorch accepts
            namespace[name] = accepts_keepdims(namespace[name])
    from minitorch.ops.aliases import NAMESPACE_INPLACE as MORE_NAMESPACE_INPLACE

    for name in NAMESPACE_INPLACE + MORE_NAMESPACE_INPLACE:  # ``minitorch.sin_(x)`` is ``x.sin_()``
        namespace[name] = namespace_function(name)


_torch_calling_conventions()


def _point_unsupported_names_at_the_coverage_page() -> None:
    """A PyTorch name minitorch lacks (``minitorch.fft``, ``x.mH``, ``F.rrelu``) raises an
    AttributeError saying so and pointing at docs/api-coverage.md (``unsupported_names.py``)."""
    import sys

    from minitorch import unsupported_names
    from minitorch.utils import data as utils_data

    modules = {"torch": sys.modules[__name__], "torch.nn": nn, "torch.nn.functional": nn.functional,
               "torch.utils.data": utils_data}  # fmt: skip
    unsupported_names.install(modules, Tensor)


_point_unsupported_names_at_the_coverage_page()
