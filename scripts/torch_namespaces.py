"""PyTorch's public namespaces, name by name, and which of them minitorch has.

Each namespace is read from the installed torch (so the count follows PyTorch, not our
memory of it): the public callables of ``torch``, the attributes of ``torch.Tensor``, the
functions of ``torch.nn.functional`` and ``torch.nn.init``, the ``Module`` classes of
``torch.nn``, the optimizers and learning-rate schedulers of ``torch.optim``, the public
names of ``torch.utils.data``. A name minitorch lacks is either *missing* (in scope: we
should have it) or *left out* by one of the ``EXCLUSIONS`` below, with the reason.
"""

from __future__ import annotations

import inspect
import re
import types

# Names a word pattern below would leave out, but which belong to the course.
IN_SCOPE_ANYWAY = {"sparse", "sparse_", "index_copy"}  # nn.init.sparse_ fills a dense matrix

# (reason, patterns searched in a name): the first match leaves a name minitorch lacks out.
EXCLUSIONS = (
    (
        "quantization (integer storage with a scale and zero point)",
        (
            r"quantiz",
            r"^q_",
            r"qint",
            r"quint",
            r"_per_channel",
            r"_per_tensor",
            r"int_repr",
            r"fbgemm",
            r"^Quant",
            r"^DeQuant",
            r"observer",
        ),
    ),
    (
        "sparse layouts (minitorch's tensors are dense and strided)",
        (
            r"sparse",
            r"coalesce",
            r"^indices$",
            r"^values$",
            r"crow_",
            r"col_indices",
            r"row_indices",
            r"^smm$",
            r"^dsmm$",
            r"^hsmm$",
            r"^spmm$",
            r"^sspaddmm$",
            r"^hspmm$",
            r"_nnz",
            r"dense_dim",
            r"^to_dense$",
            r"^is_coalesced$",
            r"^saddmm$",
        ),
    ),
    (
        "complex numbers (minitorch has no complex dtype)",
        (
            r"complex",
            r"^conj",
            r"^real$",
            r"^imag$",
            r"^angle$",
            r"^polar$",
            r"view_as_real",
            r"resolve_conj",
            r"resolve_neg",
            r"^is_neg$",
            r"chalf",
            r"cfloat",
            r"cdouble",
        ),
    ),
    (
        "FFTs and signal windows (complex numbers)",
        (
            r"fft",
            r"^stft$",
            r"^istft$",
            r"_window$",
        ),
    ),
    (
        "named tensors (a prototype PyTorch has deprecated)",
        (
            r"^rename",
            r"^refine_names$",
            r"^align_to$",
            r"^align_as$",
            r"^names$",
            r"^has_names$",
        ),
    ),
    (
        "other backends and layouts (oneDNN, XPU, MPS, nested tensors...)",
        (
            r"(^|_)(mkldnn|cudnn|miopen|vulkan|xpu|mps|hpu|ipu|mtia|xla|maia)($|_)",
            r"privateuse",
            r"^nested",
            r"_nested",
            r"padded_tensor",
            r"^is_inference",
        ),
    ),
    (
        "ATen kernels torch.* exposes undocumented (their public form is nn.functional's)",
        (
            r"_backward",
            r"^native_",
            r"^batch_norm_(elemt|gather|stats|update|backward)",
            r"^_?fused_",
            r"^conv_tbc$",
            r"^constant_pad_nd$",
            r"^convolution$",
            r"^affine_grid_generator$",
            r"^grid_sampler",
            r"^embedding_renorm_$",
            r"^feature_dropout_?$",
        ),
    ),
    (
        "the *_copy variants exist for compilers (a view op that returns a copy)",
        (r"_copy$",),
    ),
    (
        "automatic mixed precision's autocast state (minitorch computes in the dtypes it is given)",
        (r"autocast",),
    ),
    (
        "lazy modules (weights shaped at the first call), which PyTorch documents as in development",
        (r"^Lazy", r"^lazy"),
    ),
    (
        "compiler, export and tracing machinery of PyTorch itself",
        (
            r"^compile",
            r"^jit",
            r"^export",
            r"vmap",
            r"^func$",
            r"^cond$",
            r"^while_loop$",
            r"^fork$",
            r"^import_ir",
            r"^parse_",
            r"type_comment",
            r"^unify_type",
            r"^wait$",
            r"^sym_",
            r"^Sym",
            r"^fx",
            r"^library",
            r"^onnx",
            r"^compiled_with",
            r"^is_warn_always",
            r"^set_warn_always",
            r"guard",
            r"^wrap_",
            r"^get_device_module",
        ),
    ),
    (
        "deprecated, or about PyTorch's legacy tensor types",
        (
            r"^set_default_tensor_type$",
            r"^chain_matmul$",
            r"^range$",
            r"^set_flush_denormal$",
            r"^storage_type$",
            r"^is_storage$",
            r"^typename$",
        ),
    ),
    (
        "framework internals and legacy classes",
        (
            r"^Uninitialized",
            r"^ParameterizationList",
            r"^Buffer$",
            r"^Container$",
            r"^CrossMapLRN2d$",
            r"^SyncBatchNorm$",
            r"^RNNCellBase$",
            r"^RNNBase$",
        ),
    ),
    (
        "DataPipes (torchdata's design, whose development stopped in 2024; torchdata 0.10 removed "
        "it): a Dataset with a DataLoader is the path PyTorch keeps",
        (
            r"DataPipe",
            r"datapipe",
            r"^DataChunk$",
            r"^argument_validation$",
            r"^runtime_validation",
            r"^non_deterministic$",
        ),
    ),
    (
        "process and device plumbing minitorch handles its own way",
        (
            r"^record_stream$",
            r"^pin_memory$",
            r"^is_pinned$",
            r"^share_memory_$",
            r"^is_shared$",
            r"^cuda$",
            r"^cpu$",
            r"^ipc",
            r"^new_tensor$",
            r"^dim_order$",
            r"^module_load$",
            r"^map2_$",
            r"^map_$",
            r"^apply_$",
            r"^storage_offset$",
        ),
    ),
)

HELPER_MODULES = ("typing", "torch._jit_internal", "torch.overrides", "torch._C", "torch._utils", "warnings")


def _public_callables(module, names=None) -> list[str]:
    names = dir(module) if names is None else names
    found = []
    for name in names:
        if name.startswith("_"):
            continue
        value = getattr(module, name, None)
        if (
            value is None
            or isinstance(value, types.ModuleType)
            or inspect.isclass(value)
            or not callable(value)
        ):
            continue
        if (getattr(value, "__module__", "") or "") in HELPER_MODULES:
            continue
        found.append(name)
    return sorted(set(found))


def _classes(module, base) -> list[str]:
    return sorted(
        name
        for name in dir(module)
        if not name.startswith("_")
        and inspect.isclass(getattr(module, name))
        and issubclass(getattr(module, name), base)
    )


def torch_namespaces() -> dict[str, list[str]]:
    """{namespace title: PyTorch's public names in it}, read from the installed torch."""
    import torch
    import torch.nn.functional as F
    from torch.optim import lr_scheduler
    from torch.utils import data

    schedulers = _classes(lr_scheduler, lr_scheduler.LRScheduler) + ["ReduceLROnPlateau"]
    return {
        "torch": _public_callables(torch, torch.__all__),
        "torch.Tensor": sorted(name for name in dir(torch.Tensor) if not name.startswith("_")),
        "torch.nn.functional": [
            n for n in _public_callables(F) if n not in ("assert_int_or_pair", "boolean_dispatch")
        ],
        "torch.nn": _classes(torch.nn, torch.nn.Module) + ["Parameter"],
        "torch.nn.init": _public_callables(torch.nn.init),
        "torch.optim": _classes(torch.optim, torch.optim.Optimizer)
        + sorted(set(f"lr_scheduler.{n}" for n in schedulers)),
        "torch.utils.data": sorted(n for n in data.__all__ if not n.startswith("_")),
    }


def minitorch_has(namespace: str, name: str) -> bool:
    """Whether minitorch has PyTorch's ``namespace.name`` (the same path under minitorch)."""
    import minitorch

    owner = minitorch.Tensor if namespace == "torch.Tensor" else minitorch
    path = namespace.split(".")[1:] if namespace != "torch.Tensor" else []
    for part in [*path, *name.split(".")]:
        try:
            owner = getattr(owner, part)
        except (AttributeError, NotImplementedError, ImportError):
            return False
    return True


def exclusion(name: str) -> str | None:
    """Why a name minitorch lacks is out of scope, or None when it is simply missing."""
    last = name.rsplit(".", 1)[-1]
    if last in IN_SCOPE_ANYWAY:
        return None
    for reason, patterns in EXCLUSIONS:
        if any(re.search(pattern, last) for pattern in patterns):
            return reason
    return None


def coverage() -> dict[str, dict]:
    """{namespace: {"have": [...], "missing": [...], "left_out": {reason: [...]}}}."""
    table = {}
    for namespace, names in torch_namespaces().items():
        have, missing, left_out = [], [], {}
        for name in names:
            if minitorch_has(namespace, name):
                have.append(name)
            elif (reason := exclusion(name)) is not None:
                left_out.setdefault(reason, []).append(name)
            else:
                missing.append(name)
        table[namespace] = {"have": have, "missing": missing, "left_out": left_out}
    return table


def unsupported_names(namespace: str) -> set[str]:
    """The names of ``namespace`` that minitorch leaves out (for the AttributeError hint)."""
    return {name for name in torch_namespaces()[namespace] if not minitorch_has(namespace, name)}
