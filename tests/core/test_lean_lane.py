"""The lean lane of ``+ - * /`` (``minitorch/ops/lean_lane.py``) against PyTorch, and the
cases where it must not be taken.

The lane and the general path (``Add.apply`` and friends) must agree with PyTorch, and
with each other, in values, dtype, shape and strides on contiguous, transposed, sliced,
expanded, 0-d and empty operands. A spy on ``Function.apply`` tells which path ran: the
lane never calls it. Where the lane must not be taken (a gradient is needed, dtypes
differ, shapes broadcast, a dispatch trace or a compile capture is running) the test
checks what the general path does there and the lane could not: a ``grad_fn``, a
promoted dtype, the op's name in the trace records, a captured graph that replays.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.autograd.function import Function
from minitorch.ops import binary

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


class ApplySpy:
    """Counts the calls of ``Function.apply`` (the general path) while active."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        original = Function.apply.__func__

        def apply(cls, *args, **kwargs):
            self.calls.append(cls.__name__)
            return original(cls, *args, **kwargs)

        monkeypatch.setattr(Function, "apply", classmethod(apply))


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


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_the_lane_and_the_general_path_agree_with_pytorch(op, layout, dtype, backend, monkeypatch):
    arrays = pair(np.random.default_rng(len(op) * 10 + LAYOUTS.index(layout)), layout, np.dtype(dtype))
    a, b = as_tensors(mt, arrays)
    ta, tb = as_tensors(torch, arrays)
    assert a.stride() == ta.stride() and b.stride() == tb.stride()
    function, node_function, torch_function = OPS[op]
    expected = torch_function(ta, tb)
    spy = ApplySpy(monkeypatch)
    lean = function(a, b)
    operator = OPERATORS[op](a, b)
    assert spy.calls == [], "the lean lane calls no Function.apply"
    general = node_function.apply(a, b)
    for result in (lean, operator, general):
        check_like_torch(result, expected)
        assert result.grad_fn is None and not result.requires_grad


def test_the_bfloat16_lane_agrees_with_pytorch(backend):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((4, 3)).T
    a = mt.tensor(x, dtype=mt.bfloat16)
    b = mt.tensor(y.copy(), dtype=mt.bfloat16)
    ta, tb = torch.tensor(x, dtype=torch.bfloat16), torch.tensor(y.copy(), dtype=torch.bfloat16)
    for function, _, torch_function in OPS.values():
        check_like_torch(function(a, b.t().contiguous().t()), torch_function(ta, tb.t().contiguous().t()))


def test_not_taken_when_a_gradient_is_needed(monkeypatch):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    for op, (function, _, torch_function) in OPS.items():
        a, b = mt.tensor(x, requires_grad=True), mt.tensor(y)
        ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y)
        spy = ApplySpy(monkeypatch)
        out = function(b, a)  # the second operand needs the gradient
        assert spy.calls, op
        expected = torch_function(tb, ta)
        assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__
        out.sum().backward()
        expected.sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
        with mt.no_grad():  # grad mode off: the lane, and no graph
            spy.calls.clear()
            assert function(a, b).grad_fn is None and spy.calls == []


def test_not_taken_for_a_view_whose_base_got_a_history_in_place(monkeypatch):
    """``v`` was made before its base was written by an op that needs a gradient: it
    needs one too, though its own flag was set when it was made."""
    w = mt.ones(4, requires_grad=True)
    base = mt.zeros(4)
    view = base[:2]
    base.copy_(w * 2)
    spy = ApplySpy(monkeypatch)
    out = view + view
    assert spy.calls and out.grad_fn is not None
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [4, 4, 0, 0])


@pytest.mark.parametrize("other", ["float64", "int64", "float16", "bool", "bool number", "numpy number"])
def test_not_taken_when_dtypes_differ(other, monkeypatch):
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
        spy = ApplySpy(monkeypatch)
        if op == "sub" and other.startswith("bool"):  # refused by both, before any kernel runs
            with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
                torch_function(torch.tensor(x), t_other)
            with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
                function(mt.tensor(x), m_other)
        else:
            m_args, t_args = (m_other, mt.tensor(x)), (t_other, torch.tensor(x))
            if number:  # tensor first
                m_args, t_args = m_args[::-1], t_args[::-1]
            check_like_torch(function(*m_args), torch_function(*t_args))
        assert spy.calls, (op, other)


# pairs of shapes that broadcast (a 0-d weight times a batch, a bias row, a column and a
# row, an empty batch), and strides to lay them out with (contiguous or transposed)
BROADCASTS = [((), (2000,)), ((2000,), ()), ((500, 8), (8,)), ((8,), (500, 8)), ((3, 1), (1, 4)),
              ((2, 1, 4), (3, 1)), ((0, 3), (3,)), ((4, 5), (1, 5))]


@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_broadcasting_operands_take_the_lane_and_agree_with_pytorch(shapes, transposed, backend,
                                                                     monkeypatch):  # fmt: skip
    """``w * x`` with a 0-d ``w``, ``h + b`` with a bias row: the common shape and each
    operand's stride-0 view are worked out once per pair of layouts (the plan). Values
    are PyTorch's; the layout is the general path's (``prepare``), which is PyTorch's
    except where no operand fills the shape (then ours is contiguous)."""
    rng = np.random.default_rng(len(shapes[0]) * 7 + len(shapes[1]))
    arrays = [rng.standard_normal(s[::-1]).astype(np.float32).T if transposed else
              rng.standard_normal(s).astype(np.float32) for s in shapes]  # fmt: skip
    (a, b), (ta, tb) = as_tensors(mt, arrays), as_tensors(torch, arrays)
    for op, (function, _, torch_function) in OPS.items():
        general_out, a_view, b_view = binary.prepare(op, a, b)
        general = mt.dispatch.zip(op, general_out, a_view, b_view)
        expected = torch_function(ta, tb)
        spy = ApplySpy(monkeypatch)
        for _ in range(2):  # the second call finds the plan
            for result in (function(a, b), OPERATORS[op](a, b)):
                assert result.stride() == general.stride() and result.dtype == general.dtype
                np.testing.assert_allclose(result.numpy(), expected.numpy(), rtol=1e-6)
        assert spy.calls == [], op


def test_shapes_that_do_not_broadcast_raise_pytorch_s_error_and_make_no_plan():
    from minitorch.ops import lean_lane

    a, b = mt.randn(4, 5), mt.randn(6)
    made = lean_lane.plans_made
    for _ in range(2):
        with pytest.raises(RuntimeError, match=r"tensor a \(5\) must match the size of tensor b \(6\)"):
            a * b
    assert lean_lane.plans_made == made


def test_a_recorded_forward_takes_the_lane_for_its_kernel_and_still_records(monkeypatch):
    """Inside ``Mul.forward`` grad mode is off, so ``apply_zip`` asks the lane: the graph
    is still recorded by ``Function.apply`` and the gradients are PyTorch's."""
    from minitorch.ops import lean_lane

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
        made.append(lean_lane.plans_made)
    assert made[2] == made[1], "the third step finds every plan"


NUMBERS = [2.5, -3, 0, -0.0, float("nan"), 1e300, 2**40]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded", "0-d", "empty"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_a_python_number_takes_the_lane_and_agrees_with_pytorch(layout, dtype, backend, monkeypatch):
    """``x * 2.5``, ``x + 1``, ``lr * grad`` (reflected: ``grad * lr``), ``x / 0``: the
    number becomes a 0-d tensor of ``x``'s dtype, as in the general path."""
    (array, _) = pair(np.random.default_rng(5), layout, np.dtype(dtype))
    (x,), (tx,) = as_tensors(mt, [array]), as_tensors(torch, [array])
    spy = ApplySpy(monkeypatch)
    with np.errstate(all="ignore"):
        for number in NUMBERS:
            for op, (function, node_function, torch_function) in OPS.items():
                if op == "pow" and dtype == "float16" and abs(number) > 65504:
                    # PyTorch refuses an exponent float16 cannot hold; the general path
                    # takes it (inf), and so does the lane
                    general = node_function.apply(x, number)
                    spy.calls.clear()
                    for result in (function(x, number), OPERATORS[op](x, number)):
                        np.testing.assert_array_equal(result.numpy(), general.numpy())
                    continue
                check_like_torch(function(x, number), torch_function(tx, number))
                check_like_torch(OPERATORS[op](x, number), OPERATORS[op](tx, number))
            check_like_torch(number * x, number * tx)  # (``x * number``, as in the general path)
            check_like_torch(number + x, number + tx)
    assert spy.calls == []
    check_like_torch(1 - x, 1 - tx)  # a number first (not commutative): the general path
    assert spy.calls == ["Sub"]


def test_integer_tensors_take_the_general_path(monkeypatch):
    """Integers have their own rules there (true division gives floats, ``//`` by zero
    raises): the lane is for floating-point tensors only."""
    a, b = mt.tensor([[7, -3], [4, 9]]), mt.tensor([[2, 2], [-3, 4]])
    spy = ApplySpy(monkeypatch)
    out = a / b
    assert spy.calls == ["Div"]
    check_like_torch(out, torch.tensor([[7, -3], [4, 9]]) / torch.tensor([[2, 2], [-3, 4]]))


def test_not_taken_while_a_trace_records():
    """Under ``dispatch.trace()`` every kernel call is named after its op ("Add"): the
    general path pushes that name, the lane would leave the bare kernel name ("add")."""
    a, b = mt.randn(3, 4), mt.randn(3, 4)
    with mt.dispatch.trace() as calls:
        a + b
        a * b
        a - b
        a / b
    assert [(c.op, c.kernel) for c in calls] == [("Add", "add"), ("Mul", "mul"), ("Sub", "sub"),
                                                 ("Div", "div")]  # fmt: skip


def test_not_taken_inside_a_compile_capture(monkeypatch):
    """A captured program records its kernel calls with their ops; its replay on new
    inputs equals the eager result."""
    def step(x, y):
        return (x + y) * y - x / y

    compiled = mt.compile(step)
    x, y = mt.randn(3, 4), mt.rand(3, 4) + 1
    for _ in range(3):  # warm-up, capture, replay
        compiled(x, y)
    assert compiled.graph is not None
    zips = [node.op for node in compiled.graph.nodes if node.primitive == "zip"]
    assert zips[:4] == ["Add", "Mul", "Div", "Sub"]
    x2, y2 = mt.randn(3, 4), mt.rand(3, 4) + 1
    spy = ApplySpy(monkeypatch)
    np.testing.assert_allclose(compiled(x2, y2).numpy(), step(x2, y2).numpy(), rtol=1e-6)
    assert spy.calls == []  # the replay runs kernels; the eager step took the lane


def test_alpha_other_than_one_takes_the_general_path(monkeypatch):
    a, b = mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0])
    spy = ApplySpy(monkeypatch)
    assert mt.add(a, b, alpha=2).tolist() == [7.0, 10.0]
    assert mt.sub(a, b, alpha=0.5).tolist() == [-0.5, 0.0]
    assert spy.calls
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        mt.add(a, b, alpha=True)


def test_devices_must_match_in_the_lane_too():
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
