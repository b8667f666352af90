"""The table of bad inputs: the repros named in issue 18 (with the exception type PyTorch
raises, checked against PyTorch itself by ``test_named_cases_match_pytorch``), and a
generated set that calls every public function, ``nn.functional`` function and Tensor
method with hostile arguments (only "no crash, no hang, no internal error" is checked).
"""

from __future__ import annotations

import minitorch as mt
import minitorch.nn.functional as F  # noqa: N812 - PyTorch's spelling

from .harness import Case

IMAGE = "mt.ones(1, 1, 8, 8)"
KERNEL = "mt.ones(1, 1, 3, 3)"

NAMED: dict[str, list[tuple[str, str | None]]] = {
    # issue 18.1: raw strided views built by conv, pooling, fold and unfold
    "views": [
        ("F.conv2d(mt.ones(1, 1, 64, 64), mt.ones(1, 1, 3, 3), padding=-20)", "RuntimeError"),
        (f"F.conv2d({IMAGE}, {KERNEL}, dilation=-1)", "RuntimeError"),
        (f"F.conv2d({IMAGE}, {KERNEL}, dilation=0)", "RuntimeError"),
        (f"F.conv2d({IMAGE}, {KERNEL}, stride=0)", "RuntimeError"),
        (f"F.conv2d({IMAGE}, {KERNEL}, stride=-1)", "RuntimeError"),
        (f"F.conv2d({IMAGE}, mt.ones(1, 1, 9, 9))", "RuntimeError"),
        ("F.conv1d(mt.ones(1, 1, 8), mt.ones(1, 1, 3), padding=-2)", "RuntimeError"),
        ("F.conv1d(mt.ones(1, 1, 8), mt.ones(1, 1, 3), dilation=-2)", "RuntimeError"),
        ("F.conv1d(mt.ones(1, 1, 8), mt.ones(1, 1, 3), stride=0)", "RuntimeError"),
        ("F.fold(mt.ones(1, 9, 49), (5, 5), 3, dilation=-1)", "RuntimeError"),
        ("F.fold(mt.ones(1, 9, 49), (5, 5), 3, padding=-1)", "RuntimeError"),
        ("F.fold(mt.ones(1, 9, 49), (5, 5), 3, stride=0)", "RuntimeError"),
        ("F.fold(mt.ones(1, 9, 49), (5, 5), 3, stride=-1)", "RuntimeError"),
        (f"F.unfold({IMAGE}, 3, dilation=-1)", "RuntimeError"),
        (f"F.unfold({IMAGE}, 3, padding=-1)", "RuntimeError"),
        (f"F.unfold({IMAGE}, 3, stride=0)", "RuntimeError"),
        (f"F.unfold({IMAGE}, 0)", "RuntimeError"),
        (f"F.unfold({IMAGE}, 9)", "RuntimeError"),
        ("F.max_pool2d(mt.zeros(1, 1, 4, 4), 2, stride=1, dilation=-3)", "RuntimeError"),
        (f"F.max_pool2d({IMAGE}, 2, stride=0)", "RuntimeError"),
        (f"F.max_pool2d({IMAGE}, 2, padding=-1)", "RuntimeError"),
        (f"F.max_pool2d({IMAGE}, 0)", "RuntimeError"),
        (f"F.max_pool2d({IMAGE}, -2)", "RuntimeError"),
        (f"F.avg_pool2d({IMAGE}, 2, stride=0)", "RuntimeError"),
        (f"F.avg_pool2d({IMAGE}, 2, padding=-1)", "RuntimeError"),
        (f"F.avg_pool2d({IMAGE}, 0)", "RuntimeError"),
        ("F.max_pool1d(mt.ones(1, 1, 8), 2, stride=0)", "RuntimeError"),
        ("F.avg_pool1d(mt.ones(1, 1, 8), 2, padding=-1)", "RuntimeError"),
        ("nn.Conv2d(1, 1, 3, stride=0)(mt.ones(1, 1, 8, 8))", "RuntimeError"),
        ("nn.MaxPool2d(2, stride=0)(mt.ones(1, 1, 8, 8))", "RuntimeError"),
        ("nn.Linear(0, 3)(mt.ones(2, 0))", "returns"),
        ("nn.Linear(3, 0)(mt.ones(2, 3))", "returns"),
    ],
    # issue 18.2: element counts and byte extents that overflow
    "sizes": [
        ("mt.arange(6.).as_strided((2**62, 2), (0, 1)).sum()", "RuntimeError"),
        ("mt.ones(1, 1).expand(2**62, 4).sum()", "RuntimeError"),
        ("mt.ones(1, 1).expand(2**62, 4)", "RuntimeError"),
        ("mt.ones(1).expand(2**31, 2**31, 2**31)", "RuntimeError"),
        ("mt.arange(6.).as_strided((2**40, 2**40), (1, 1))", "RuntimeError"),
        ("mt.zeros(2**62)", "RuntimeError"),
        ("mt.zeros(2**31, 2**31, 2**31)", "RuntimeError"),
        ("mt.ones(2**40)", "RuntimeError"),
        ("mt.full((2**62,), 1.0)", "RuntimeError"),
        ("mt.zeros(-1)", "RuntimeError"),
        ("mt.ones(3, -2)", "RuntimeError"),
        ("mt.zeros(2**63)", "TypeError"),
        ("mt.ones(4).reshape(2**62, 0)", "RuntimeError"),
        ("mt.ones(4).view(-1, 0)", "RuntimeError"),
    ],
    # issue 18.6 and 18.7: values out of range, error parity
    "values": [
        ("mt.tensor(2**63)", "ValueError"),
        ("mt.tensor([float('nan')], dtype=mt.int64)", "RuntimeError"),
        ("mt.div(mt.tensor([7]), 0, rounding_mode='trunc')", "RuntimeError"),
        ("mt.div(mt.tensor([7]), 0, rounding_mode='floor')", "RuntimeError"),
        ("mt.tensor([7]) // 0", "RuntimeError"),
        ("mt.tensor([7]) % 0", "RuntimeError"),
        ("mt.ones(3).flip(0, 0)", "RuntimeError"),
        ("mt.tensor(1.0).flip(0)", "returns"),
        ("mt.tensor(1.0).gather(0, mt.tensor(0))", "returns"),
        ("mt.tensor(1.0).nonzero()", "returns"),
        ("mt.mm(mt.ones(2, 2), 3)", "TypeError"),
        ("mt.ones(3) + np.ones(3)", "returns"),
        ("mt.add(mt.ones(3), 2.5, alpha=2)", "returns"),
        ("mt.ones(3) == None", "returns"),
        ("mt.ones(3) in [None]", "returns"),
        ("mt.relu(mt.tensor([True]))", "RuntimeError"),
        ("mt.tensor([True]).abs()", "RuntimeError"),
        ("mt.floor(mt.tensor([True]))", "RuntimeError"),
        ("mt.matmul(mt.ones(2, 2, dtype=mt.bool), mt.ones(2, 2, dtype=mt.bool))", "RuntimeError"),
        ("mt.softmax(mt.arange(3), 0)", "RuntimeError"),
        ("mt.arange(3).norm()", "RuntimeError"),
        ("mt.ones(3).masked_fill(mt.ones(3), 0.0)", "RuntimeError"),
        ("mt.ones(3)[mt.tensor([1.0])]", "IndexError"),
        ("mt.ones(3)[5]", "IndexError"),
        ("mt.ones(3)[2**62]", "IndexError"),
        ("mt.ones(3)[mt.tensor([2**62])]", "IndexError"),
        ("mt.ones(3)[mt.tensor([-4])]", "IndexError"),
        ("mt.ones(3).index_select(0, mt.tensor([3]))", "IndexError"),
        ("mt.ones(3).gather(0, mt.tensor([3]))", "RuntimeError"),
        ("mt.zeros(3).scatter_add(0, mt.tensor([-9]), mt.ones(1))", "RuntimeError"),
        ("nn.Embedding(3, 2)(mt.tensor([3]))", "IndexError"),
        ("F.one_hot(mt.tensor([5]), 3)", "RuntimeError"),
        ("F.cross_entropy(mt.ones(2, 3), mt.tensor([0, 3]))", "IndexError"),
        ("F.nll_loss(mt.ones(2, 3), mt.tensor([0, -2]))", "IndexError"),
        ("x = mt.ones(2, 3); x[0] = mt.ones(1, 3)", "returns"),
        ("x = mt.ones(3, dtype=mt.bool); x[[0]] = 2", "returns"),
        ("x = mt.ones(3); x[[0]] = None", "TypeError"),
        ("x = mt.ones(3); x[0] = 'a'", "TypeError"),
        ("x = mt.ones(3); x[mt.tensor([5])] = 1.0", "IndexError"),
    ],
    # torch.linalg's LDL factorisation: shapes, dtypes, singular and NaN matrices, bad pivots
    "ldl": [
        ("mt.linalg.ldl_factor(mt.ones(3, 4))", "RuntimeError"),
        ("mt.linalg.ldl_factor(mt.ones(3))", "RuntimeError"),
        ("mt.linalg.ldl_factor(mt.ones(3, 3, dtype=mt.int64))", "RuntimeError"),
        ("mt.linalg.ldl_factor(mt.ones(3, 3, dtype=mt.float16))", "NotImplementedError"),
        ("mt.linalg.ldl_factor(mt.zeros(3, 3))", "RuntimeError"),
        ("mt.linalg.ldl_factor(mt.tensor([[float('nan')]]))", "RuntimeError"),
        ("mt.linalg.ldl_factor(mt.tensor([[float('inf'), 1.0], [1.0, 0.0]]))", "RuntimeError"),
        ("mt.linalg.ldl_factor_ex(mt.zeros(3, 3))", "returns"),
        ("mt.linalg.ldl_factor_ex(mt.zeros(3, 3), check_errors=True)", "RuntimeError"),
        ("mt.linalg.ldl_factor(mt.zeros(0, 0))", "returns"),
        ("mt.linalg.ldl_factor(mt.zeros(0, 4, 4))", "returns"),
        ("mt.linalg.ldl_factor([[1.0]])", "TypeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(2), mt.ones(2, 1))", "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.zeros(2, dtype=mt.int32), mt.ones(2, 1))", "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.tensor([2**62, 1]), mt.ones(2, 1))", "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.tensor([-(2**63), 1]), mt.ones(2, 1))", "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(2, dtype=mt.int32), mt.ones(2))", "IndexError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(2, dtype=mt.int32), mt.ones(3, 1))", "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(3, dtype=mt.int32), mt.ones(2, 1))", "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(2, dtype=mt.int32), mt.ones(2, 1, dtype=mt.float64))",
         "RuntimeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(2, dtype=mt.int32), [1.0])", "TypeError"),
        ("mt.linalg.ldl_solve(mt.eye(2), mt.ones(2, dtype=mt.int32), mt.ones(2, 0))", "returns"),
    ],
}


def named_cases() -> list[Case]:
    return [Case(f"{group}-{i}", code, expect, group)
            for group, rows in NAMED.items() for i, (code, expect) in enumerate(rows)]  # fmt: skip


# ----- the generated set -------------------------------------------------------------------

TENSORS = [
    "mt.zeros(0)",
    "mt.zeros(0, 3)",
    "mt.tensor(1.5)",
    "mt.ones(3, 4)",
    "mt.arange(12.).reshape(3, 4)[:, ::2]",
    "mt.ones(1, 3).expand(4, 3)",
    "mt.tensor([True, False, True])",
    "mt.tensor([float('nan'), float('inf'), -1.0])",
    "mt.arange(6)",
    "mt.arange(4, dtype=mt.int32)",
    "mt.ones(2, 1, 3, 1, 2)",
    "mt.ones(1, 2, 5, 5)",
]
ARGUMENTS = ["None", "'x'", "-1", "0", "2**62", "-(2**62)", "1.5", "float('nan')", "()", "[]",
             "(-1, -1)", "mt.tensor([5])", "mt.zeros(0)", "mt.ones(2, 2)"]  # fmt: skip
METHOD_ARGUMENTS = ["None", "-1", "2**62", "1.5", "mt.tensor([5])", "mt.zeros(0)", "(-1, -1)"]
SUBJECT = "mt.ones(3, 4).t()"  # a non-contiguous float tensor
SIZES = ["-1", "2**62", "(3, -1)", "(2**31, 2**31)", "1.5", "'x'", "None", "mt.tensor(3)", "()"]
CREATION = ["zeros", "ones", "empty", "rand", "randn", "randperm", "arange", "eye", "full", "linspace",
            "randint", "tensor", "as_tensor", "zeros_like", "ones_like", "full_like", "empty_like",
            "rand_like", "randn_like"]  # fmt: skip
NOT_OPS = {"backend", "set_backend", "get_backend", "manual_seed", "seed", "initial_seed",
           "set_default_dtype", "get_default_dtype", "set_grad_enabled", "no_grad", "enable_grad",
           "is_grad_enabled", "save", "load", "from_dlpack", "is_tensor", "Generator", "Size", "Tensor",
           "device", "dtype", "promote_types", "result_type"}  # fmt: skip
NOT_METHODS = {"backward", "register_hook", "cuda", "numpy", "tolist", "item", "data", "grad", "grad_fn"}


def _public(module) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))
                  and not isinstance(getattr(module, n), type) and not hasattr(getattr(module, n), "__path__")
                  and type(getattr(module, n)).__name__ != "module")  # fmt: skip


def _calls(prefix: str) -> list[str]:
    """Hostile calls of one callable: each hostile tensor alone, a non-contiguous tensor
    with each hostile argument (positional, and a few as ``dim``), two hostile tensors."""
    calls = [f"{prefix}({t})" for t in TENSORS]
    calls += [f"{prefix}({SUBJECT}, {a})" for a in ARGUMENTS]
    calls += [f"{prefix}({SUBJECT}, dim={a})" for a in ("-3", "2**62")]
    calls += [f"{prefix}({a}, {b})" for a, b in zip(TENSORS[:4], TENSORS[4:8])]
    calls += [f"{prefix}({a})" for a in ("None", "'x'")]
    return calls


def generated_cases() -> list[Case]:
    """Generated calls, grouped by the function called. A case's id is its code, so ids
    stay the same when the public API grows."""
    groups: dict[str, list[str]] = {}
    for name in CREATION:
        groups[f"mt.{name}"] = [f"mt.{name}({size})" for size in SIZES]
    for name in _public(mt):
        if name not in NOT_OPS and name not in CREATION:
            groups[f"mt.{name}"] = _calls(f"mt.{name}")
    for name in _public(F):
        groups[f"F.{name}"] = _calls(f"F.{name}")
    for name in _public(mt.Tensor):
        if name not in NOT_METHODS:
            groups[f"Tensor.{name}"] = [f"{SUBJECT}.{name}({a})" for a in METHOD_ARGUMENTS] + [
                f"mt.tensor(2.0).{name}()", f"mt.zeros(0, 3).{name}()"]  # fmt: skip
    groups["Tensor[]"] = [f"{SUBJECT}[{a}]" for a in ARGUMENTS + ["..., ..., 0", "None, 5", "mt.tensor(1.5)"]]
    groups["Tensor[]="] = [f"x = {SUBJECT}; x[{a}] = 1.0" for a in ARGUMENTS]
    return [Case(code, code, None, group) for group, codes in groups.items() for code in dict.fromkeys(codes)]


def all_cases(strict: bool = False) -> list[Case]:
    """Every case; strict mode (kernels recompiled with bounds checks) keeps the named
    repros and one generated case in eight."""
    generated = generated_cases()
    return named_cases() + (generated[::8] if strict else generated)
