"""minitorch.compile on randomly generated programs: a replay must do what eager code does.

Each program is a seeded chain of ops over a pool of tensors (elementwise ops with
broadcasting, comparisons and ``where``, reductions, ``matmul``/``bmm``, views, ``cat``/
``stack``, indexing, ``softmax``, ``gather`` with a constant index, in-place ops on temps
and on inputs). A program is compiled, then called several times with NEW random inputs
of the same shapes and layouts; each call is compared with the same program run eagerly
on copies of those inputs: results, the inputs afterwards (in-place ops), and the
gradients of the parameters the program reads. On the reference backend the comparison
is bit for bit (a replay runs the very kernels eager code ran); on numba too, but the
message then says which tolerance would have been enough.

``MINITORCH_FUZZ=long`` (or a number) runs more programs (``tests/hostile/budget.py``).
"""

from __future__ import annotations

import copy
import random
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.compiler import CaptureError
from minitorch.compiler.passes import PASSES
from tests.hostile.budget import fuzz_count

PROGRAMS = fuzz_count(80)  # per backend and mode: the default run stays well under a minute
CALLS = 3  # replays per program, each on new inputs


# ----- the ops a program is made of ------------------------------------------------------
# Each maker gets the random source and the pool's shapes and returns (name, function of
# tensors, positions in the pool), or None when it does not fit the pool.


def _pick(rng, shapes, ndim_at_least=0):
    fitting = [i for i, s in enumerate(shapes) if len(s) >= ndim_at_least]
    return rng.choice(fitting) if fitting else None


def _unary(rng, shapes):
    name, f = rng.choice([
        ("exp", lambda a: (a * 0.5).exp()), ("tanh", minitorch.tanh), ("sigmoid", minitorch.sigmoid),
        ("neg", lambda a: -a), ("relu", minitorch.relu), ("sin", minitorch.sin),
        ("log", lambda a: (a.abs() + 1).log()), ("sqrt", lambda a: (a.abs() + 0.5).sqrt()),
        ("pow", lambda a: a.pow(2)), ("clamp", lambda a: a.clamp(-0.5, 0.7)),
        ("scalar", lambda a: a * 1.5 - 0.25), ("abs", minitorch.abs),
    ])  # fmt: skip
    return name, f, [_pick(rng, shapes)]


def _broadcastable(a, b):
    return all(x == y or 1 in (x, y) for x, y in zip(reversed(a), reversed(b)))


def _binary(rng, shapes):
    i = _pick(rng, shapes)
    partners = [j for j, s in enumerate(shapes) if _broadcastable(shapes[i], s)]
    j = rng.choice(partners)
    name, f = rng.choice([
        ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
        ("div", lambda a, b: a / (b.abs() + 1)), ("maximum", minitorch.maximum),
        ("where", lambda a, b: minitorch.where(a > b, a, b * 2)),
        ("where_lt", lambda a, b: minitorch.where(a < 0.1, b, a)),
    ])  # fmt: skip
    return name, f, [i, j]


def _reduction(rng, shapes):
    i = _pick(rng, shapes, 1)
    if i is None:
        return None
    dim, keepdim = rng.randrange(-len(shapes[i]), len(shapes[i])), rng.random() < 0.5
    name, f = rng.choice([
        ("sum", lambda a: a.sum(dim, keepdim=keepdim)), ("mean", lambda a: a.mean(dim, keepdim=keepdim)),
        ("max", lambda a: a.max(dim, keepdim=keepdim)[0]), ("amax", lambda a: a.amax(dim, keepdim=keepdim)),
        ("sum_all", lambda a: a.sum()), ("softmax", lambda a: a.softmax(dim)),
        ("log_softmax", lambda a: a.log_softmax(dim)),
    ])  # fmt: skip
    return name, f, [i]


def _matmul(rng, shapes):
    i = _pick(rng, shapes, 2)
    if i is None:
        return None
    if len(shapes[i]) == 2:
        return rng.choice([("mm_t", lambda a: a @ a.t()), ("t_mm", lambda a: a.t().matmul(a))]) + ([i],)
    if len(shapes[i]) == 3:
        return "bmm", lambda a: minitorch.bmm(a, a.transpose(1, 2)), [i]
    return "matmul", lambda a: a @ a.transpose(-1, -2), [i]


def _view(rng, shapes):
    i = _pick(rng, shapes)
    shape = shapes[i]
    n = len(shape)
    d = rng.randrange(n) if n else 0
    new_dim = rng.randrange(n + 1)
    choices = [("unsqueeze", lambda a: a.unsqueeze(new_dim)), ("flatten", lambda a: a.reshape(-1)),
               ("expand", lambda a: a.unsqueeze(0).expand(2, *shape))]  # fmt: skip
    if n:
        perm = list(range(n))
        rng.shuffle(perm)
        e = rng.randrange(n)
        start = rng.randrange(shape[d]) if shape[d] else 0
        choices += [
            ("transpose", lambda a: a.transpose(d, e)), ("permute", lambda a: a.permute(*perm)),
            ("slice", lambda a: a[start:] if d == 0 else a.narrow(d, start, shape[d] - start)),
            ("step", lambda a: a.transpose(0, d)[::2]), ("index", lambda a: a[start] if shape[0] else a),
            ("squeeze", lambda a: a.squeeze()), ("view", lambda a: a.contiguous().view(-1, shape[-1])),
        ]  # fmt: skip
    name, f = rng.choice(choices)
    return name, f, [i]


def _join(rng, shapes):
    i = _pick(rng, shapes, 1)
    if i is None:
        return None
    same = [j for j, s in enumerate(shapes) if s == shapes[i]]
    j = rng.choice(same)
    dim = rng.randrange(len(shapes[i]))
    return rng.choice([("cat", lambda a, b: minitorch.cat([a, b * 2], dim)),
                       ("stack", lambda a, b: minitorch.stack([a, b], dim))]) + ([i, j],)  # fmt: skip


def _gather(rng, shapes):
    i = _pick(rng, shapes, 1)
    if i is None or 0 in shapes[i]:
        return None
    dim = rng.randrange(len(shapes[i]))
    index = np.random.default_rng(rng.randrange(2**32)).integers(0, shapes[i][dim], size=shapes[i])
    # the index tensor is made inside the program: a constant of the graph
    return "gather", lambda a: a.gather(dim, minitorch.tensor(index.tolist())), [i]


def _inplace(rng, shapes):
    i = _pick(rng, shapes)

    def add_into_a_copy(a):
        b = a.clone()
        b.mul_(0.5).add_(1)
        if b.dim():
            b[0] = b[-1] * 3  # setitem
        return b

    def transpose_a_copy(a):
        b = a.clone()
        return b.t_() if b.dim() == 2 else b.unsqueeze_(0)

    return rng.choice([("inplace", add_into_a_copy), ("t_", transpose_a_copy)]) + ([i],)


MAKERS = [_unary, _binary, _binary, _reduction, _matmul, _view, _view, _join, _gather, _inplace]


class RandomProgram:
    """A seeded chain of ops; ``program(*tensors)`` runs it (see the module docstring).

    ``parameters`` are tensors the program reads from its closure (leaves that require
    grad when ``with_grad``); the arguments are its inputs. With ``mutate_input`` the
    program also adds into its first argument in place."""

    def __init__(self, seed: int, with_grad: bool = False) -> None:
        rng = random.Random(seed)
        self.with_grad = with_grad
        sizes = [0, 1, 2, 3, 4] if rng.random() < 0.1 else [1, 2, 3, 4]  # now and then an empty tensor
        ranks = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
        self.shapes = [tuple(rng.choice(sizes) for _ in range(rank)) for rank in ranks]
        self.layouts = [rng.choice(["contiguous", "transposed", "sliced", "offset"]) for _ in self.shapes]
        self.parameters = [minitorch.randn(*s).requires_grad_(with_grad) for s in self.shapes[:1]]
        self.mutate_input = not with_grad and rng.random() < 0.3 and self.layouts[0] != "transposed"
        self.steps: list[tuple[str, object, list[int]]] = []
        pool = self.parameters + self.inputs(rng.randrange(2**32))
        for _ in range(rng.randint(3, 8)):
            for _attempt in range(20):
                made = rng.choice(MAKERS)(rng, [tuple(t.shape) for t in pool])
                if made is None:
                    continue
                name, f, positions = made
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        out = f(*[pool[p] for p in positions])
                except (RuntimeError, IndexError, ValueError):
                    continue  # does not fit these shapes: draw another op
                if out.numel() > 4096:
                    continue
                self.steps.append((name, f, positions))
                pool.append(out)
                break
        self.outputs = sorted({len(pool) - 1, rng.randrange(len(self.parameters), len(pool))})

    def inputs(self, seed: int) -> list[minitorch.Tensor]:
        """New random inputs, in the same shapes and layouts every time."""
        source = np.random.default_rng(seed)
        made = []
        for shape, layout in zip(self.shapes, self.layouts):
            if layout == "transposed" and len(shape) >= 2:
                t = minitorch.tensor(source.standard_normal(shape[::-1]).astype(np.float32))
                t = t.permute(*reversed(range(len(shape))))
            elif layout == "sliced" and len(shape) >= 1:
                wide = (*shape[:-1], 2 * shape[-1])
                t = minitorch.tensor(source.standard_normal(wide).astype(np.float32))[..., ::2]
            elif layout == "offset":
                flat = minitorch.tensor(source.standard_normal(int(np.prod(shape)) + 3).astype(np.float32))
                t = flat[3:].view(*shape) if shape else flat[3]
            else:
                t = minitorch.tensor(source.standard_normal(shape).astype(np.float32))
            made.append(t)
        return made

    def __call__(self, *inputs):
        if self.mutate_input:
            inputs[0].add_(inputs[0] * 0.5 + 1)
        if self.with_grad:
            for p in self.parameters:
                p.grad = None
        pool = self.parameters + list(inputs)
        for _name, f, positions in self.steps:
            pool.append(f(*[pool[p] for p in positions]))
        results = [pool[i] for i in self.outputs]
        if not self.with_grad:
            return tuple(results)
        loss = sum((r * r).sum() for r in results) + sum(p.sum() for p in self.parameters)
        loss.backward()
        return loss.detach(), tuple(r.detach() for r in results)

    def describe(self) -> str:
        steps = ", ".join(f"{name}{positions}" for name, _, positions in self.steps)
        return f"inputs {self.shapes} {self.layouts}: {steps} -> {self.outputs}"


def _flat(value):
    if isinstance(value, minitorch.Tensor):
        return [value.detach().numpy()]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _flat(v)]
    return [np.asarray(value)]


def _same(got, expected, exact: bool, what: str) -> None:
    for g, e in zip(_flat(got), _flat(expected), strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype, what
        if exact:
            np.testing.assert_array_equal(g, e, err_msg=what)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6, err_msg=what)


def run_and_compare(seed: int, backend: str, with_grad: bool, passes: list | None = None) -> None:
    with minitorch.backend(backend):
        program = RandomProgram(seed, with_grad)
        twin = copy.copy(program)
        twin.parameters = [p.detach().clone().requires_grad_(with_grad) for p in program.parameters]
        compiled = minitorch.compile(program, warmup=1, passes=passes)
        what = f"seed {seed} on {backend}, passes {passes}: {program.describe()}"
        for call in range(CALLS + 2):  # warm-up, capture, then replays
            inputs = program.inputs(1000 * seed + call)
            copies = program.inputs(1000 * seed + call)
            got, expected = compiled(*inputs), twin(*copies)
            exact = backend == "reference"
            _same(got, expected, exact, f"{what}, call {call}: results")
            _same(inputs, copies, exact, f"{what}, call {call}: inputs afterwards")
            if with_grad:
                grads = [p.grad for p in program.parameters]
                _same(grads, [p.grad for p in twin.parameters], exact, f"{what}, call {call}: gradients")
        assert compiled.graph is not None, f"{what}: never captured ({compiled.explain()})"
        assert compiled.recaptures == [], what


@pytest.mark.parametrize("with_grad", [False, True], ids=["forward", "backward"])
@pytest.mark.parametrize("backend", ["reference", "numba"])
def test_random_programs_replay_as_eagerly(backend, with_grad):
    for seed in range(PROGRAMS):
        run_and_compare(seed, backend, with_grad)


@pytest.mark.parametrize("name", [[]] + [[name] for name in sorted(PASSES)], ids=str)
def test_each_pass_alone_keeps_what_random_programs_compute(name):
    for seed in range(PROGRAMS // 4):
        run_and_compare(500 + seed, "numba", seed % 2 == 1, passes=name)


# ----- training steps: N compiled steps equal N eager ones --------------------------------

OPTIMIZERS = {
    "sgd_momentum_decay": lambda p: minitorch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.01),
    "sgd_nesterov": lambda p: minitorch.optim.SGD(p, lr=0.05, momentum=0.5, nesterov=True),
    "adam": lambda p: minitorch.optim.Adam(p, lr=0.01),
    "adam_decay": lambda p: minitorch.optim.Adam(p, lr=0.01, weight_decay=0.1),
}


@pytest.mark.parametrize("backend", ["reference", "numba"])
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_training_steps_of_random_programs_equal_eager_steps(optimizer, backend):
    for seed in range(4):
        with minitorch.backend(backend):
            program = RandomProgram(100 + seed, with_grad=True)
            twin = copy.copy(program)
            twin.parameters = [p.detach().clone().requires_grad_() for p in program.parameters]
            opt, twin_opt = OPTIMIZERS[optimizer](program.parameters), OPTIMIZERS[optimizer](twin.parameters)

            def step(*inputs, program=program, opt=opt):
                loss, _ = program(*inputs)
                opt.step()
                return loss

            def eager_step(*inputs, twin=twin, opt=twin_opt):
                loss, _ = twin(*inputs)
                opt.step()
                return loss

            compiled = minitorch.compile(step)
            for call in range(6):
                inputs = program.inputs(call)
                _same(compiled(*inputs), eager_step(*program.inputs(call)), True, f"{program.describe()}")
            _same(program.parameters, twin.parameters, True, f"seed {seed}: parameters after 6 steps")
            assert compiled.recaptures == [] and compiled.eager == {}, compiled.explain()


# ----- in-place ops and views of the arguments ---------------------------------------------


def _compare_calls(f, make_inputs, calls=4):
    """Call ``f`` compiled and eagerly on equal new inputs; compare results and inputs."""
    compiled = minitorch.compile(f)
    for call in range(calls):
        inputs, copies = make_inputs(call), make_inputs(call)
        _same(compiled(*inputs), f(*copies), True, f"call {call}: results")
        _same(inputs, copies, True, f"call {call}: inputs afterwards")
    return compiled


def _matrices(*shapes):
    def make(seed):
        source = np.random.default_rng(seed)
        return [minitorch.tensor(source.standard_normal(s).astype(np.float32)) for s in shapes]

    return make


def _add_then_double(x):
    x.add_(1)
    return x * 2


def _setitem_rows(x, y):
    x[0] = y[1]
    x[1:, 1] = 5.0
    return x.sum(0)


def _inplace_through_a_view(x):
    x.t()[1:].mul_(3)
    return x


def _returns_views(x):
    return x.t(), x[1], x.unsqueeze(0).expand(2, 3, 4)


def _copy_into(x, y):
    x.copy_(y.t())
    return y.sum()


@pytest.mark.parametrize("f, shapes", [
    (_add_then_double, [(3, 4)]), (_setitem_rows, [(3, 4), (2, 4)]), (_inplace_through_a_view, [(3, 4)]),
    (_returns_views, [(3, 4)]), (_copy_into, [(3, 4), (4, 3)]),
], ids=lambda v: getattr(v, "__name__", ""))  # fmt: skip
def test_inplace_ops_and_views_of_arguments_keep_eager_semantics(f, shapes):
    with minitorch.backend("reference"):
        compiled = _compare_calls(f, _matrices(*shapes))
    assert compiled.graph is not None and compiled.eager == {}


def _transpose_in_place(x):
    x.t_()
    return x + 1


def _unsqueeze_in_place(x):
    x.unsqueeze_(0)
    return x * 2


@pytest.mark.parametrize("f", [_transpose_in_place, _unsqueeze_in_place], ids=lambda f: f.__name__)
def test_an_argument_whose_shape_changes_in_place_runs_eagerly(f):
    # A replay writes values; it cannot give a new argument another shape: eager it is.
    with pytest.warns(UserWarning, match="changes the shape or strides of its argument x in place"):
        compiled = _compare_calls(f, _matrices((3, 4)))
    assert compiled.graph is None and "runs eagerly" in compiled.explain()


def test_gradients_of_an_argument_run_eagerly_and_are_right():
    # Before: a replay wrote the gradient into the captured call's w.grad, and every new
    # w kept .grad None.
    def f(x, w):
        loss = (x * w).tanh().sum()
        loss.backward()
        return loss.detach()

    compiled = minitorch.compile(f)
    with pytest.warns(UserWarning, match="computes the gradient of its argument w"):
        for call in range(4):
            x, w = _matrices((3,), (3,))(call)
            w.requires_grad_()
            twin = w.detach().clone().requires_grad_()
            _same(compiled(x, w), f(x, twin), True, f"call {call}")
            _same(w.grad, twin.grad, True, f"call {call}: w.grad")


# ----- guards ---------------------------------------------------------------------------


def test_each_guard_recaptures_and_says_why():
    weight = minitorch.randn(4)
    f = minitorch.compile(lambda x, scale: (x * weight).sum() * scale, warmup=0)
    calls = [
        (lambda: f(minitorch.ones(3, 4), 2.0), None),
        (lambda: f(minitorch.ones(5, 4), 2.0), "x: shape (3, 4) -> (5, 4)"),
        (lambda: f(minitorch.ones(5, 4), 3.0), "argument scale changed (2.0 -> 3.0)"),
        (lambda: f(minitorch.ones(5, 4).double(), 3.0), "x: dtype torch.float32 -> torch.float64"),
        (lambda: f(minitorch.ones(4, 5).t(), 3.0), "x: strides (4, 1) -> (1, 5)"),
    ]
    for call, reason in calls:
        call()
        assert reason is None or f.recaptures[-1] == reason
    with minitorch.no_grad():
        f(minitorch.ones(4, 5).t(), 3.0)
    assert f.recaptures[-1] == "grad mode changed (on -> off)"
    with minitorch.no_grad(), minitorch.backend("reference"):
        x = minitorch.ones(4, 5).t()
        assert f(x, 3.0).item() == f.fn(x, 3.0).item()
    assert f.recaptures[-1] == "cpu backend changed (numba -> reference)"
    weight.data = minitorch.zeros(4)  # the graph reads weight: a new storage is noticed
    assert f(minitorch.ones(4, 5).t(), 3.0).item() == 0.0
    assert f.recaptures[-1] == "weight was replaced (its storage changed)"


def test_data_dependent_control_flow_names_the_line():
    def f(x):
        if x.sum().item() > 0:
            return x
        return -x

    with pytest.raises(CaptureError, match=r"test_random_programs.py, line \d+"):
        minitorch.compile(f, warmup=0)(minitorch.ones(3))


def test_random_numbers_inside_are_refused():
    f = minitorch.compile(lambda x: minitorch.nn.functional.dropout(x, 0.5), warmup=0)
    with pytest.raises(CaptureError, match="random numbers"):
        f(minitorch.ones(3))


@pytest.mark.parametrize("backend", ["reference", "numba"])
def test_an_index_out_of_range_on_replay_fails_as_eagerly_before_any_kernel(backend):
    with minitorch.backend(backend):

        def f(x, i):
            x.add_(1)  # would show if a kernel ran before the check
            return x.gather(1, i)

        compiled = minitorch.compile(f)
        x = minitorch.zeros(2, 3)
        for _ in range(3):
            compiled(x, minitorch.tensor([[0, 2], [1, 1]]))
        bad = minitorch.tensor([[0, 3], [1, 1]])
        with pytest.raises(RuntimeError) as eager:
            f(minitorch.zeros(2, 3), bad)
        before = x.numpy().copy()
        with pytest.raises(type(eager.value), match=str(eager.value).split("(")[0][:40]):
            compiled(x, bad)
        np.testing.assert_array_equal(x.numpy(), before)


def test_a_replaced_tensor_of_a_closure_a_list_or_an_object_is_noticed():
    # Before: only modules' and optimizers' tensors were watched; a graph kept reading
    # the old storage of any other tensor the function reads.
    w, pair = minitorch.ones(3), [minitorch.ones(3), minitorch.ones(3)]
    program = RandomProgram(7)
    holder = {"closure": lambda x: x * w, "list": lambda x: x * pair[1], "object": program}
    for kind, f in holder.items():
        compiled = minitorch.compile(f)
        inputs = program.inputs(0) if kind == "object" else [minitorch.ones(3)]
        compiled(*inputs), compiled(*inputs)
        target = {"closure": w, "list": pair[1], "object": program.parameters[0]}[kind]
        target.data = target.detach() * 0 + 2
        _same(compiled(*inputs), f(*inputs), True, kind)
        assert compiled.recaptures[-1].endswith("was replaced (its storage changed)"), kind


def test_arguments_viewing_one_storage_at_another_distance_recapture():
    # Both views are read through one input buffer, at the distance seen at capture:
    # before, f(base[0:3], base[2:5]) replayed f(base[0:3], base[1:4])'s graph.
    f = minitorch.compile(lambda a, b: a * 10 + b)
    base = minitorch.arange(10.0)
    for first, second in [(0, 1), (0, 1), (0, 1), (0, 2), (3, 4), (5, 7)]:
        a, b = base[first : first + 3], base[second : second + 3]
        assert f(a, b).tolist() == (a * 10 + b).tolist()
    assert f.recaptures == ["b: storage sharing (first argument of that storage, offset from it) "
                            "(0, 1) -> (0, 2)"]  # fmt: skip
