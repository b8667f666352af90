"""The one path of ``+ - * / **`` (``apply_zip`` in ``minitorch/ops/elementwise.py``) and
its plans (kept in ``minitorch/dispatch/plans.py``) against PyTorch.

Every call goes through the op's ``Function.apply`` (``t + b`` is ``add``, ``Add.apply``,
``Add.forward``, ``apply_zip``), which alone decides whether it records. These tests check
that the op function, its operator and the ``Function`` agree with PyTorch in values,
dtype, shape and strides on contiguous, transposed, sliced, expanded, 0-d, empty and
broadcast operands; that a second call with the same layouts finds its plan
(``plans.made`` does not grow); that a ``grad_fn`` is there exactly when a gradient is
needed; that a number keeps its own value; that casts, numpy scalars and integer ``//``,
``%`` and ``**`` (whose checks read values) are never remembered; and that while a trace
or a compile capture records, every kernel call carries its op's name.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.dispatch import plans
from minitorch.ops import binary, elementwise

pytestmark = pytest.mark.usefixtures("fresh_plans")  # (tests/core/conftest.py)

OPS = {  # name -> (minitorch function, the general path's Function, PyTorch function)
    "add": (mt.add, binary.Add, torch.add),
    "sub": (mt.sub, binary.Sub, torch.sub),
    "mul": (mt.mul, binary.Mul, torch.mul),
    "div": (mt.div, binary.Div, torch.div),
    "pow": (mt.pow, binary.Pow, torch.pow),
}
OPERATORS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
             "mul": lambda a, b: a * b, "div": lambda a, b: a / b, "pow": lambda a, b: a**b}  # fmt: skip


def pair(rng: np.random.Generator, layout: str, dtype: np.dtype):
    """Two NumPy operands of one shape in the given layout (views of bigger arrays)."""

    def normal(*shape):
        return rng.standard_normal(shape).astype(dtype)

    if layout == "contiguous":
        return normal(4, 5), normal(4, 5)
    if layout == "transposed":
        return normal(5, 4).T, normal(5, 4).T
    if layout == "one transposed":
        return normal(5, 4).T, normal(4, 5)
    if layout == "sliced":
        return normal(6, 9)[1:5, ::2], normal(4, 7)[:, 2:7]
    if layout == "expanded":
        return np.broadcast_to(normal(1, 5), (4, 5)), normal(5, 4).T
    if layout == "0-d":
        return normal(), normal()
    if layout == "empty":
        return normal(0, 3), normal(0, 3)
    raise AssertionError(layout)


def as_tensors(lib, arrays):
    """The same layouts in ``lib`` (minitorch or torch): each array's memory copied into
    a flat tensor, then viewed with the array's shape, strides and offset."""
    tensors = []
    for array in arrays:
        if array.size == 0:
            tensors.append(lib.from_numpy(array.copy()))
            continue
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        item = array.itemsize
        offset = (array.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
        flat = lib.from_numpy(np.frombuffer(base.tobytes(order="A"), dtype=array.dtype).copy())
        tensors.append(flat.as_strided(array.shape, tuple(s // item for s in array.strides), offset))
    return tensors


def check_like_torch(actual: mt.Tensor, expected: torch.Tensor) -> None:
    actual, expected = actual.detach(), expected.detach()
    assert str(actual.dtype) == str(expected.dtype)
    assert tuple(actual.shape) == tuple(expected.shape)
    if expected.numel() > 1:
        assert actual.stride() == expected.stride(), (actual.stride(), expected.stride())
    rtol = 1e-2 if actual.element_size() == 2 else 1e-6  # 16-bit floats: 8 or 11 bits
    if actual.dtype == mt.bfloat16:  # (NumPy has no bfloat16)
        actual, expected = actual.float(), expected.float()
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=rtol)


LAYOUTS = ["contiguous", "transposed", "one transposed", "sliced", "expanded", "0-d", "empty"]


def zip_op_keys() -> list[tuple]:
    """The keys of the ops layer's plans (``apply_zip``'s) in the one plan cache now."""
    return [key for key in plans.cache if key[0] == "zip_op"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_the_function_the_operator_and_apply_agree_with_pytorch_and_find_their_plan(op, layout, dtype,
                                                                                     backend):  # fmt: skip
    """``mt.add(a, b)``, ``a + b`` and ``Add.apply(a, b)`` are one path: the first call
    makes the plan for the layouts, the others find it (no plan is made)."""
    arrays = pair(np.random.default_rng(len(op) * 10 + LAYOUTS.index(layout)), layout, np.dtype(dtype))
    a, b = as_tensors(mt, arrays)
    ta, tb = as_tensors(torch, arrays)
    assert a.stride() == ta.stride() and b.stride() == tb.stride()
    function, node_function, torch_function = OPS[op]
    expected = torch_function(ta, tb)
    first = function(a, b)
    made = plans.made
    operator = OPERATORS[op](a, b)
    general = node_function.apply(a, b)
    again = function(a, b)
    assert plans.made == made, "the calls after the first find its plan"
    assert elementwise.plan_key(op, a, b) in plans.cache
    for result in (first, operator, general, again):
        check_like_torch(result, expected)
        assert result.grad_fn is None and not result.requires_grad


def test_bfloat16_agrees_with_pytorch(backend):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((4, 3)).T
    a = mt.tensor(x, dtype=mt.bfloat16)
    b = mt.tensor(y.copy(), dtype=mt.bfloat16)
    ta, tb = torch.tensor(x, dtype=torch.bfloat16), torch.tensor(y.copy(), dtype=torch.bfloat16)
    for function, _, torch_function in OPS.values():
        for _ in range(2):  # (the second call through the plan)
            check_like_torch(function(a, b.t().contiguous().t()), torch_function(ta, tb.t().contiguous().t()))


def test_a_graph_is_recorded_exactly_when_a_gradient_is_needed():
    """``Function.apply`` records a node when grad mode is on and an input needs a
    gradient, and only then; the recorded call and the unrecorded ones share one plan."""
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    for op, (function, _, torch_function) in OPS.items():
        a, b = mt.tensor(x, requires_grad=True), mt.tensor(y)
        ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y)
        out = function(b, a)  # the second operand needs the gradient
        expected = torch_function(tb, ta)
        assert out.grad_fn is not None and out.requires_grad, op
        assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
        out.sum().backward()
        expected.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
        made = plans.made
        with mt.no_grad():  # grad mode off: no graph
            unrecorded = function(b, a)
        plain = function(b, a.detach())  # grad mode on, no input needing a gradient: no graph
        for result in (unrecorded, plain):
            assert result.grad_fn is None and not result.requires_grad, op
            check_like_torch(result, expected)
        assert plans.made == made, f"{op}: the recorded call's plan serves the others"


def test_a_view_whose_base_got_a_history_in_place_records():
    """``v`` was made before its base was written by an op that needs a gradient: it
    needs one too, though its own flag was set when it was made."""
    w = mt.ones(4, requires_grad=True)
    base = mt.zeros(4)
    view = base[:2]
    base.copy_(w * 2)
    out = view + view
    assert out.grad_fn is not None
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [4, 4, 0, 0])


@pytest.mark.parametrize("other", ["float64", "int64", "float16", "bool", "bool number", "numpy number"])
def test_casts_and_numpy_numbers_are_never_remembered(other, fresh_plans):
    """A cast operand is a new copy on every call and a numpy scalar's promotion is not its
    type's alone: ``prepare`` runs each time (no plan of the ops layer is kept), with
    PyTorch's answers each time. A Python bool is a plain number: its plan is kept."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    number = other.endswith("number")
    if other == "bool":
        y = rng.standard_normal((3, 4)) > 0
    elif other == "bool number":
        y = True
    elif other == "numpy number":
        y = np.float64(2.5)
    else:
        y = (rng.standard_normal((3, 4)) * 3).astype(other)
    for op, (function, _, torch_function) in OPS.items():
        m_other = y if number else mt.tensor(y)
        t_other = y if number else torch.tensor(y)
        if op == "sub" and other.startswith("bool"):  # refused by both, before any kernel runs
            with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
                torch_function(torch.tensor(x), t_other)
            for _ in range(2):
                with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
                    function(mt.tensor(x), m_other)
        else:
            m_args, t_args = (m_other, mt.tensor(x)), (t_other, torch.tensor(x))
            if number:  # tensor first
                m_args, t_args = m_args[::-1], t_args[::-1]
            for _ in range(2):
                check_like_torch(function(*m_args), torch_function(*t_args))
    kept = {key[1] for key in zip_op_keys()}
    assert kept == ({"add", "mul", "div", "pow"} if other == "bool number" else set()), other


# pairs of shapes that broadcast (a 0-d weight times a batch, a bias row, a column and a
# row, an empty batch), and strides to lay them out with (contiguous or transposed)
BROADCASTS = [((), (2000,)), ((2000,), ()), ((500, 8), (8,)), ((8,), (500, 8)), ((3, 1), (1, 4)),
              ((2, 1, 4), (3, 1)), ((0, 3), (3,)), ((4, 5), (1, 5))]


@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_broadcasting_operands_find_their_plan_and_agree_with_pytorch(shapes, transposed, backend):
    """``w * x`` with a 0-d ``w``, ``h + b`` with a bias row: the common shape and each
    operand's stride-0 view are worked out once per pair of layouts (the plan). Values
    are PyTorch's; the layout is ``prepare``'s, which is PyTorch's except where no operand
    fills the shape (then ours is contiguous)."""
    rng = np.random.default_rng(len(shapes[0]) * 7 + len(shapes[1]))
    arrays = [rng.standard_normal(s[::-1]).astype(np.float32).T if transposed else
              rng.standard_normal(s).astype(np.float32) for s in shapes]  # fmt: skip
    (a, b), (ta, tb) = as_tensors(mt, arrays), as_tensors(torch, arrays)
    for op, (function, _, torch_function) in OPS.items():
        general_out, a_view, b_view = elementwise.prepare(op, a, b)
        general = mt.dispatch.zip(op, general_out, a_view, b_view)
        expected = torch_function(ta, tb)
        made = []
        for _ in range(2):  # the second call finds the plan
            for result in (function(a, b), OPERATORS[op](a, b)):
                assert result.stride() == general.stride() and result.dtype == general.dtype
                np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-6)
            made.append(plans.made)
        assert made[1] == made[0], op
        assert elementwise.plan_key(op, a, b) in plans.cache, op


def test_shapes_that_do_not_broadcast_raise_pytorch_s_error_and_make_no_plan():
    a, b = mt.randn(4, 5), mt.randn(6)
    made = plans.made
    for _ in range(2):
        with pytest.raises(RuntimeError, match=r"tensor a \(5\) must match the size of tensor b \(6\)"):
            a * b
    assert plans.made == made
    assert elementwise.plan_key("mul", a, b) not in plans.cache


def test_a_recorded_forward_finds_its_plan_and_still_records():
    """``Mul.apply`` records the node; ``Mul.forward`` runs ``apply_zip``, which finds the
    plan for its kernel from the second step on: the graph and the gradients are PyTorch's."""
    w, tw = mt.tensor(1.5, requires_grad=True), torch.tensor(1.5, requires_grad=True)
    x = np.linspace(-3, 3, 2000, dtype=np.float32)
    made = []
    for _ in range(3):  # (the second step is the first to add into an existing w.grad)
        y, ty = (w * mt.tensor(x) + 2.0) ** 2, (tw * torch.tensor(x) + 2.0) ** 2
        assert [type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__] == \
               [type(ty.grad_fn).__name__, type(ty.grad_fn.next_functions[0][0]).__name__]  # fmt: skip
        y.sum().backward()
        ty.sum().backward()
        check_like_torch(y, ty)  # (detached there)
        np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5)
        made.append(plans.made)
        assert elementwise.plan_key("mul", w, mt.tensor(x)) in plans.cache  # (the kernel of Mul.forward)
    assert made[2] == made[1], "the third step finds every plan"


NUMBERS = [2.5, -3, 0, -0.0, float("nan"), 1e300, 2**40]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_a_python_number_keeps_its_own_value_through_the_plan(layout, dtype, backend, fresh_plans):
    """``x * 2.5``, ``x + 1``, ``lr * grad`` (reflected: ``grad * lr``), ``x / 0``: the
    number becomes a 0-d tensor of ``x``'s dtype, as ``prepare`` makes it. Numbers of one
    type share one plan per op and layout; each call brings its own value."""
    (array, _) = pair(np.random.default_rng(5), layout, np.dtype(dtype))
    (x,), (tx,) = as_tensors(mt, [array]), as_tensors(torch, [array])
    with np.errstate(all="ignore"):
        for number in NUMBERS:
            for op, (function, node_function, torch_function) in OPS.items():
                if op == "pow" and dtype == "float16" and abs(number) > 65504:
                    # PyTorch refuses an exponent float16 cannot hold; ``prepare`` takes
                    # it (inf), and so does the plan
                    general = node_function.apply(x, number)
                    for result in (function(x, number), OPERATORS[op](x, number)):
                        np.testing.assert_array_equal(result.numpy(), general.numpy())
                    continue
                check_like_torch(function(x, number), torch_function(tx, number))
                check_like_torch(OPERATORS[op](x, number), OPERATORS[op](tx, number))
            check_like_torch(number * x, number * tx)  # (``x * number``, as ``prepare`` does)
            check_like_torch(number + x, number + tx)
        check_like_torch(1 - x, 1 - tx)  # a number first (not commutative)
    keys = zip_op_keys()
    number_types = {(key[1], key[3] if isinstance(key[3], type) else key[-1]) for key in keys}
    assert number_types == {(op, t) for op in OPS for t in (int, float)}  # (``1 - x``: ``sub``, int)
    assert len(keys) == 2 * len(OPS) + 1  # one plan per op and number type (and ``1 - x``)


def test_integer_checks_read_values_on_every_call():
    """Integer ``//``, ``%`` and ``**`` check the divisor or exponent (``prepare``): a
    zero divisor or a negative exponent raises PyTorch's error even after a call of the
    same layouts has run, so no plan of the ops layer is kept for them."""
    a, ta = mt.tensor([[7, -3], [4, 9]]), torch.tensor([[7, -3], [4, 9]])
    b, tb = mt.tensor([[2, 2], [-3, 4]]), torch.tensor([[2, 2], [-3, 4]])
    zero, tzero = mt.tensor([[2, 0], [1, 1]]), torch.tensor([[2, 0], [1, 1]])
    positive, tpositive = mt.tensor([[2, 1], [0, 3]]), torch.tensor([[2, 1], [0, 3]])
    for _ in range(2):
        check_like_torch(a / b, ta / tb)  # true division: floats, both operands cast
        check_like_torch(a // b, ta // tb)
        check_like_torch(a % b, ta % tb)
        check_like_torch(a // 2, ta // 2)
        check_like_torch(a % -3, ta % -3)
        check_like_torch(a**positive, ta**tpositive)
        check_like_torch(a**2, ta**2)
    # the same layouts (and number types) as the calls above, other values
    for x, divisor in ((a, zero), (ta, tzero), (a, 0), (ta, 0)):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            x // divisor
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            x % divisor
    for x in (a, ta):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            x**-1
    for op, args in (("div", (a, b)), ("floordiv", (a, b)), ("remainder", (a, b)), ("floordiv", (a, 2)),
                     ("remainder", (a, -3)), ("pow", (a, positive)), ("pow", (a, 2))):  # fmt: skip
        assert elementwise.plan_key(op, *args) not in plans.cache, op


def test_a_trace_records_each_op_s_name_even_when_its_plan_is_kept():
    """Under ``dispatch.trace()`` every kernel call is named after its op ("Add"): plans
    are not served while a trace records, so the kernel goes through dispatch's ``zip``
    with the op's name on the stack, though the calls before the trace made the plans."""
    a, b = mt.randn(3, 4), mt.randn(3, 4)
    for _ in range(2):  # the plans are made, then found
        for function in OPERATORS.values():
            function(a, b)
    assert all(elementwise.plan_key(op, a, b) in plans.cache for op in ("add", "mul", "sub", "div"))
    with mt.dispatch.trace() as calls:
        a + b
        a * b
        a - b
        a / b
    assert [(c.op, c.kernel) for c in calls] == [("Add", "add"), ("Mul", "mul"), ("Sub", "sub"),
                                                 ("Div", "div")]  # fmt: skip
    made = plans.made
    for function in OPERATORS.values():  # afterwards the plans serve again
        check_like_torch(function(a, b), function(torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy())))
    assert plans.made == made


def test_a_compile_capture_records_each_op_and_replays():
    """A captured program records its kernel calls with their ops, though the eager step
    made their plans first; its replay on new inputs equals the eager result."""
    def step(x, y):
        return (x + y) * y - x / y

    x, y = mt.randn(3, 4), mt.rand(3, 4) + 1
    step(x, y)  # the plans of these layouts
    compiled = mt.compile(step)
    for _ in range(3):  # warm-up, capture, replay
        compiled(x, y)
    assert compiled.graph is not None
    zips = [node.op for node in compiled.graph.nodes if node.primitive == "zip"]
    assert zips[:4] == ["Add", "Mul", "Div", "Sub"]
    x2, y2 = mt.randn(3, 4), mt.rand(3, 4) + 1
    np.testing.assert_allclose(compiled(x2, y2).numpy(), step(x2, y2).numpy(), rtol=1e-6)


def test_alpha_other_than_one_multiplies_first():
    """``add(a, b, alpha=2)`` is ``a + b * 2``: the trace shows the ``Mul`` before the
    ``Add``; ``alpha=1`` is the plain sum; a bool alpha is refused as in PyTorch."""
    a, b = mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0])
    ta, tb = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    check_like_torch(mt.add(a, b, alpha=2), torch.add(ta, tb, alpha=2))
    check_like_torch(mt.sub(a, b, alpha=0.5), torch.sub(ta, tb, alpha=0.5))
    with mt.dispatch.trace() as calls:
        mt.add(a, b, alpha=2)
        mt.add(a, b, alpha=1)
    assert [c.op for c in calls] == ["Mul", "Add", "Add"]
    for lib, x, y in ((mt, a, b), (torch, ta, tb)):
        with pytest.raises(RuntimeError, match="Boolean alpha"):
            lib.add(x, y, alpha=True)


def test_devices_must_match():
    from minitorch.backends import cuda, cuda_emulator

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    a = mt.randn(2, 2)
    with cuda.emulated():
        b = mt.randn(2, 2, device="cuda")
        with pytest.raises(RuntimeError, match="same device"):
            a + b
        mt.cuda.synchronize()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_squares_and_cubes_multiply_bit_for_bit_as_pytorch(dtype, backend):
    """``x ** 2`` and ``x ** 3`` are computed by multiplying (``scalar_ops.pow_``), as
    PyTorch's CPU kernels do: the same bits, on a loop that vectorizes."""
    values = np.random.default_rng(7).standard_normal(1000).astype(dtype) * 50
    x, tx = mt.from_numpy(values.copy()), torch.from_numpy(values.copy())
    for exponent in (2, 3, 2.0, 3.0):
        np.testing.assert_array_equal((x**exponent).numpy(), (tx**exponent).numpy())
    np.testing.assert_array_equal(x.pow(mt.full((1000,), 3.0, dtype=x.dtype)).numpy(), (tx * tx * tx).numpy())


@pytest.mark.parametrize("layout", ["contiguous", "transposed input", "expanded gradient"])
def test_a_linear_layers_backward_agrees_with_pytorch(layout):
    """``AddmmBackward0`` and ``TBackward0`` run one formula whether or not a graph is
    recorded: a plain backward's gradients, and a ``create_graph`` backward's second
    derivatives, agree with PyTorch's on contiguous, transposed and expanded layouts."""
    rng = np.random.default_rng(11)
    x_values = rng.standard_normal((5, 3)).astype(np.float32)
    if layout == "transposed input":
        x_values = np.ascontiguousarray(x_values.T).T
    w_values = rng.standard_normal((4, 3)).astype(np.float32)
    b_values = rng.standard_normal(4).astype(np.float32)
    results = []
    for lib in (mt, torch):
        x = as_tensors(lib, [x_values])[0].requires_grad_()
        w, b = lib.tensor(w_values, requires_grad=True), lib.tensor(b_values, requires_grad=True)
        out = lib.nn.functional.linear(x, w, b)
        assert type(out.grad_fn).__name__ == "AddmmBackward0"
        loss = out.sum() if layout == "expanded gradient" else (out * out).sum()
        loss.backward(retain_graph=True)
        grads = [x.grad.clone(), w.grad.clone(), b.grad.clone()]
        (gx,) = lib.autograd.grad((out.tanh() ** 2).sum(), x, create_graph=True)  # recorded
        (second,) = lib.autograd.grad(gx.sum(), w)
        results.append([*grads, gx, second])
    for actual, expected in zip(*results):
        np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
