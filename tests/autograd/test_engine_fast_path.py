"""The backward engine's cheaper paths (issue 12) against PyTorch: a leaf's first gradient
is one copy in the leaf's memory order, never an alias of a tensor someone else holds;
``sum()``/``mean()`` spread a 0-d gradient without ``unsqueeze``; the engine un-broadcasts
and casts only when it must; the accumulation kernel is named ``AccumulateGrad`` in
dispatch traces; a gradient the engine made itself (an un-broadcasting sum, a cast) is
kept by its leaf without a copy, but only when no one else can have seen it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_close, pair, to_numpy

import minitorch as mt
from minitorch import dispatch

RNG = np.random.default_rng(12)


def leaf_pair(data, dtype="float64"):
    return pair(data, dtype, requires_grad=True)


def shares_storage(a, b) -> bool:
    return np.shares_memory(a._storage, b._storage)


def test_a_gradient_passed_to_backward_is_copied_not_kept():
    """``x.backward(g)`` for a leaf ``x`` runs only its AccumulateGrad: ``x.grad`` must
    not be ``g`` (writing into ``g`` afterwards leaves ``x.grad`` alone), as in PyTorch."""
    for lib in (mt, torch):
        x = lib.zeros(3, requires_grad=True)
        g = lib.tensor([1.0, 2.0, 3.0])
        x.backward(g)
        g.mul_(10)
        assert x.grad.tolist() == [1.0, 2.0, 3.0], lib.__name__
    m = mt.zeros(3, requires_grad=True)
    g = mt.ones(3)
    m.backward(g)
    assert not shares_storage(m.grad, g)


def test_one_gradient_sent_to_two_leaves_gives_each_its_own_storage():
    """``a + b`` sends the very same gradient tensor to ``a`` and ``b``."""
    ma, ta = leaf_pair(RNG.standard_normal((2, 3)))
    mb, tb = leaf_pair(RNG.standard_normal((2, 3)))
    mg, tg = pair(RNG.standard_normal((2, 3)), "float64")
    (ma + mb).backward(mg)
    (ta + tb).backward(tg)
    assert not shares_storage(ma.grad, mb.grad)
    assert not shares_storage(ma.grad, mg) and not shares_storage(mb.grad, mg)
    ma.grad.add_(1.0)
    ta.grad.add_(1.0)
    assert_close(ma.grad, ta.grad)
    assert_close(mb.grad, tb.grad)
    assert_close(mg, tg)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, a: lib.tensor(a),  # contiguous
        lambda lib, a: lib.tensor(a).t(),  # transposed
        lambda lib, a: lib.tensor(a)[:, ::2],  # every other column: not dense
        lambda lib, a: lib.tensor(a).unsqueeze(0).permute(2, 0, 1),  # 3-D, permuted
        lambda lib, a: lib.tensor(a)[1],  # a row
    ],
    ids=["contiguous", "transposed", "strided", "permuted", "row"],
)
def test_a_leaf_gradient_has_the_leaf_memory_order_like_torch(make):
    data = RNG.standard_normal((4, 6))
    m, t = make(mt, data).requires_grad_(), make(torch, data).requires_grad_()
    weight = RNG.standard_normal(tuple(t.shape))
    (m * mt.tensor(weight)).sum().backward()
    (t * torch.tensor(weight)).sum().backward()
    assert_close(m.grad, t.grad)
    assert m.grad.stride() == t.grad.stride()
    assert m.grad.grad_fn is None and not m.grad.requires_grad


def test_a_transposed_gradient_arriving_at_a_contiguous_leaf_is_stored_contiguous():
    """``TBackward0`` hands a Linear weight a transposed gradient: the stored one follows
    the weight, as PyTorch's does."""
    ml, tl = mt.nn.Linear(3, 2, dtype=mt.float64), torch.nn.Linear(3, 2, dtype=torch.float64)
    with torch.no_grad():
        tl.weight.copy_(torch.from_numpy(ml.weight.detach().numpy()))
        tl.bias.copy_(torch.from_numpy(ml.bias.detach().numpy()))
    x = RNG.standard_normal((5, 3))
    ml(mt.tensor(x)).pow(2).sum().backward()
    tl(torch.tensor(x)).pow(2).sum().backward()
    assert_close(ml.weight.grad, tl.weight.grad)
    assert ml.weight.grad.is_contiguous() and ml.weight.grad.stride() == tl.weight.grad.stride()


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (5,), (2, 3, 4)])
def test_a_second_backward_adds_to_the_stored_gradient(shape):
    data = RNG.standard_normal(shape)
    m, t = leaf_pair(data)
    for scale in (2.0, -3.0):
        (m * scale).sum().backward()
        (t * scale).sum().backward()
    assert_close(m.grad, t.grad)
    assert tuple(m.grad.shape) == tuple(t.grad.shape)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_keeps_the_gradient_differentiable():
    m, t = leaf_pair(RNG.standard_normal(4))
    (m**3).sum().backward(create_graph=True)
    (t**3).sum().backward(create_graph=True)
    assert m.grad.requires_grad and m.grad.grad_fn is not None
    assert_close(m.grad, t.grad)
    (second,) = mt.autograd.grad(m.grad.sum(), m)
    (twin,) = torch.autograd.grad(t.grad.sum(), t)
    assert_close(second, twin)
    m.grad = t.grad = None  # (the gradient's graph leads back to the leaf: break the cycle)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_full_reductions_spread_their_gradient_like_torch(shape, reduction):
    data = RNG.standard_normal(shape)
    m, t = leaf_pair(data)
    mg, tg = pair(RNG.standard_normal(()), "float64")
    getattr(m, reduction)().backward(mg)
    getattr(t, reduction)().backward(tg)
    assert_close(m.grad, t.grad, equal_nan=True)


@pytest.mark.parametrize("dims,keepdim", [((0,), False), ((1,), True), ((0, 2), False), ((0, 1, 2), True),
                                          ((-1,), False)])  # fmt: skip
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_partial_reductions_spread_their_gradient_like_torch(dims, keepdim, reduction):
    data = RNG.standard_normal((2, 3, 4)).transpose(2, 0, 1)  # a non-contiguous leaf
    m, t = leaf_pair(data)
    out_m = getattr(m, reduction)(dims, keepdim=keepdim)
    out_t = getattr(t, reduction)(dims, keepdim=keepdim)
    weight = RNG.standard_normal(tuple(out_t.shape))
    (out_m * mt.tensor(weight)).sum().backward()
    (out_t * torch.tensor(weight)).sum().backward()
    assert_close(m.grad, t.grad)


def names_down(node) -> list[str]:
    """The node names along the first edges from ``node``."""
    names = []
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_the_double_backward_graph_of_a_full_reduction_is_torch_s(reduction):
    """With ``create_graph=True`` the backward of ``x.sum()`` is recorded: an expand of the
    0-d gradient, with no ``UnsqueezeBackward0``, as in PyTorch (``mean`` also divides:
    we divide the 0-d gradient before expanding it, PyTorch after)."""
    results = []
    for lib in (mt, torch):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        g = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        (gx,) = lib.autograd.grad(getattr(x, reduction)(), x, g, create_graph=True)
        results.append((names_down(gx.grad_fn), to_numpy(gx)))
    (ours, our_values), (theirs, their_values) = results
    assert "UnsqueezeBackward0" not in ours and "UnsqueezeBackward0" not in theirs
    assert "ExpandBackward0" in ours and ours[-1] == "AccumulateGrad"
    if reduction == "sum":
        assert ours == theirs
    np.testing.assert_allclose(our_values, their_values)


def test_broadcast_and_mixed_dtype_gradients_are_summed_and_cast_like_torch():
    ma, ta = leaf_pair(RNG.standard_normal((3, 1)), "float32")
    mb, tb = leaf_pair(RNG.standard_normal(4), "float64")
    ms, ts = leaf_pair(RNG.standard_normal(()), "float32")
    ((ma * mb + ms) ** 2).sum().backward()
    ((ta * tb + ts) ** 2).sum().backward()
    for m, t in ((ma, ta), (mb, tb), (ms, ts)):
        assert m.grad.dtype.name == str(t.grad.dtype).rsplit(".", 1)[-1]
        assert tuple(m.grad.shape) == tuple(t.grad.shape)
        assert_close(m.grad, t.grad)


def test_the_accumulation_kernel_is_named_accumulate_grad_in_traces():
    x = mt.randn(3, requires_grad=True)
    g = mt.full((3,), 2.0)  # held by the test: the leaf must copy it
    with dispatch.trace() as calls:
        x.backward(g)
    copies = [c for c in calls if c.primitive == "map" and c.kernel == "copy"]
    assert [(c.op, c.phase) for c in copies] == [("AccumulateGrad", "backward")]
    assert all(c.phase == "backward" for c in calls)
    assert_close(x.grad, torch.full((3,), 2.0))


def test_hooks_and_retain_grad_still_see_every_gradient():
    seen = []
    m = mt.tensor([1.0, 2.0], requires_grad=True)
    m.register_hook(lambda g: seen.append(g.tolist()))
    y = m * 3
    y.retain_grad()
    (y * y).sum().backward()
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = t * 3
    ty.retain_grad()
    (ty * ty).sum().backward()
    assert seen == [t.grad.tolist()]
    assert_close(y.grad, ty.grad)
    assert_close(m.grad, t.grad)


# (input shape, the shape it is broadcast to): leading dims added, size-1 dims stretched,
# both, a 0-d input (the polynomial tutorial's weights), empty and size-1 dims
UNBROADCASTS = [((8,), (500, 8)), ((), (2000,)), ((3, 1), (3, 4)), ((1, 4), (2, 3, 4)),
                ((2, 1, 1), (5, 2, 3, 4)), ((1,), (0,)), ((1, 1), (1, 1)), ((4, 1, 2), (4, 0, 2))]


@pytest.mark.parametrize("shape, target", UNBROADCASTS, ids=str)
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed gradient"])
def test_unbroadcast_without_graph_equals_the_recorded_sums_and_torch(shape, target, transposed):
    """A broadcast input's gradient is summed back to its shape. Without ``create_graph``
    the engine runs the reduce kernels itself (``_sum_without_graph``); with it, through
    ``sum()`` so the sums are recorded. Both give the same bits, and PyTorch's values;
    the second derivative exists only with the graph."""
    rng = np.random.default_rng(len(shape) * 10 + len(target))  # the data of this case alone
    grad_values = rng.standard_normal(target[::-1] if transposed else target)
    input_values = rng.standard_normal(shape)
    # Summing n float32 terms in another order (PyTorch sums pairwise, the reference backend
    # one after another) may differ by about n * eps * max|term|.
    terms = max(int(np.prod(target)) // max(int(np.prod(shape)), 1), 1)
    tolerance = max(1e-5, terms * np.finfo(np.float32).eps * float(np.abs(grad_values).max(initial=0)))
    results = []
    for create_graph in (False, True):
        m, t = leaf_pair(input_values, "float32")
        mg, tg = pair(grad_values, "float32")
        mg.requires_grad_(create_graph)  # (a gradient with a history to record)
        if transposed:
            mg, tg = mg.permute(*reversed(range(mg.ndim))), tg.permute(*reversed(range(tg.ndim)))
        (m * 1.0).expand(*target).backward(mg, create_graph=create_graph)
        (t * 1.0).expand(*target).backward(tg)
        assert tuple(m.grad.shape) == shape
        assert_close(m.grad, t.grad, rtol=1e-5, atol=tolerance)
        assert m.grad.requires_grad == create_graph
        results.append(m.grad.detach().numpy().copy())
    np.testing.assert_array_equal(results[0], results[1])


def test_unbroadcast_sums_are_named_in_traces_as_before():
    """While a trace records, the engine's sums go through ``sum()`` as before, so the
    trace still shows them."""
    b = mt.zeros(8, requires_grad=True)
    x = mt.randn(500, 8)
    loss = (x + b).sum()
    with dispatch.trace() as calls:
        loss.backward()
    assert [c.primitive for c in calls].count("reduce") == 1
    assert_close(b.grad, torch.full((8,), 500.0))


def test_a_gradient_the_engine_summed_is_kept_without_a_copy():
    """A 0-d weight times a vector (the polynomial fit): the engine sums the gradient
    down to the weight's shape, and that new tensor becomes ``w.grad`` as it is. It is a
    tensor of its own (not a view), its values PyTorch's, and writing into it afterwards
    (``zero_()``, an optimizer) touches nothing else."""
    x = RNG.standard_normal(50)
    results = []
    for lib in (mt, torch):
        w = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
        xs = lib.tensor(x)
        loss = ((w * xs + b) ** 2).sum()
        loss.backward()
        results.append((w.grad.item(), b.grad.tolist(), tuple(w.grad.shape), tuple(b.grad.shape)))
    assert results[0][2:] == results[1][2:]
    np.testing.assert_allclose(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1])
    m = mt.tensor(0.5, requires_grad=True)
    xs = mt.tensor(x.astype(np.float32))
    assert count_copies(lambda: (m * xs).sum().backward()) == 0, "the summed gradient was copied"
    assert m.grad._base is None and m.grad.grad_fn is None
    kept = m.grad
    (m * xs).sum().backward()  # a second backward adds: a new tensor, the old one untouched
    np.testing.assert_allclose(kept.item(), x.astype(np.float32).sum(), rtol=1e-5)
    np.testing.assert_allclose(m.grad.item(), 2 * x.astype(np.float32).sum(), rtol=1e-5)


def test_a_summed_gradient_that_a_hook_saw_is_copied():
    """A hook on the leaf may keep the gradient it is shown: then ``x.grad`` must be a
    copy, so that zeroing ``x.grad`` leaves the hook's tensor alone (PyTorch's behaviour)."""
    for lib in (mt, torch):
        w = lib.tensor(2.0, requires_grad=True)
        seen = []
        w.register_hook(seen.append)
        (w * lib.ones(4)).sum().backward()
        w.grad.zero_()
        assert seen[0].item() == 4.0, lib.__name__


def test_a_summed_gradient_is_copied_when_a_step_listener_watches():
    from minitorch.autograd import engine

    delivered = []
    engine.step_listeners.append(lambda node, incoming, local, sent: delivered.extend(sent))
    try:
        w = mt.tensor(2.0, requires_grad=True)
        (w * mt.ones(4)).sum().backward()
    finally:
        engine.step_listeners.pop()
    w.grad.zero_()
    assert [g.item() for g in delivered if g is not None and g.ndim == 0] == [4.0]


def test_a_leaf_in_another_memory_order_gets_its_summed_gradient_in_that_order():
    """A transposed leaf, broadcast against a batch: the engine's sum is row-major, so it
    is copied into the leaf's memory order, as PyTorch lays the gradient out."""
    data, batch = RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3, 4))
    grads = []
    for lib in (mt, torch):
        w = lib.tensor(data).t().detach().requires_grad_()
        (w * lib.tensor(batch)).sum().backward()
        grads.append(w.grad)
    assert grads[0].stride() == grads[1].stride() == (1, 3)
    assert_close(grads[0], grads[1])


def test_a_leaf_reached_twice_gets_the_sum_of_both_gradients():
    """Two broadcast uses of one leaf: both sums arrive, the engine adds them, and the
    leaf keeps that sum (a second gradient ends the claim of the first)."""
    data, results = RNG.standard_normal((3, 2)), []
    for lib in (mt, torch):
        w = lib.tensor([[1.5]], dtype=lib.float64, requires_grad=True)
        x = lib.tensor(data)
        (w * x + (w * x) ** 2).sum().backward()
        results.append(w.grad.item())
    np.testing.assert_allclose(results[0], results[1])


def count_copies(run) -> int:
    """How many ``copy`` kernels ``run()`` makes (the copies of ``accumulate_grad``)."""
    copies = []
    original = dispatch.map

    def counting_map(op, out, a):
        copies.append(op)
        return original(op, out, a)

    dispatch.map = counting_map
    try:
        run()
    finally:
        dispatch.map = original
    return copies.count("copy")


def test_a_linear_layer_keeps_its_new_gradients_without_copies():
    """A bias's gradient is a new sum and a weight's a new product seen through a
    transpose: no one else holds them, so both become ``.grad`` uncopied, as tensors of
    their own in the parameters' layouts, with PyTorch's values."""
    x, target = RNG.standard_normal((5, 4)), RNG.standard_normal((5, 3))
    layers = {}
    for lib in (mt, torch):
        lib.manual_seed(0)
        layers[lib] = lib.nn.Linear(4, 3)
        with lib.no_grad():
            layers[lib].weight.copy_(lib.tensor(np.arange(12.0).reshape(3, 4) / 10))
            layers[lib].bias.copy_(lib.tensor([0.5, -0.5, 0.25]))

    def loss(lib):
        prediction = layers[lib](lib.tensor(x, dtype=lib.float32))
        return ((prediction - lib.tensor(target, dtype=lib.float32)) ** 2).sum()

    assert count_copies(lambda: loss(mt).backward()) == 0
    loss(torch).backward()
    for name in ("weight", "bias"):
        ours, theirs = getattr(layers[mt], name).grad, getattr(layers[torch], name).grad
        assert ours._base is None and ours.grad_fn is None and ours.stride() == theirs.stride()
        assert_close(ours, theirs)


class Stash(mt.autograd.Function):
    """Passes the gradient on as it is, and keeps it: the leaf must then copy it."""

    kept: list = []

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        out = grad * 3
        Stash.kept.append(out)
        return out


def test_a_gradient_someone_else_holds_is_copied():
    x = mt.ones(3, requires_grad=True)
    Stash.kept.clear()
    assert count_copies(lambda: Stash.apply(x).sum().backward()) == 1
    x.grad.zero_()  # writing into x.grad leaves the stashed gradient alone
    assert Stash.kept[0].tolist() == [3.0, 3.0, 3.0]
    y = mt.ones(2, requires_grad=True)  # a + b sends one gradient to both: copies
    (y + y).sum().backward()
    assert y.grad.tolist() == [2.0, 2.0]
    z = mt.ones(2, requires_grad=True)
    w = mt.ones(2, requires_grad=True)
    loss = (z + w).sum()
    loss.backward()
    z.grad.add_(5.0)  # z's gradient and w's may not be one tensor
    assert w.grad.tolist() == [1.0, 1.0] and z.grad.tolist() == [6.0, 6.0]


def test_a_gradient_kept_by_retain_graph_formulas_is_still_right_the_second_time():
    w = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = mt.tensor([[0.5, -1.0], [2.0, 1.0]])
    loss = (x @ w.t()).sum()
    loss.backward(retain_graph=True)
    first = w.grad
    loss.backward()
    assert first.tolist() == [[2.5, 0.0], [2.5, 0.0]]  # the kept tensor was not added into
    assert w.grad.tolist() == [[5.0, 0.0], [5.0, 0.0]]


def test_hooks_and_retained_gradients_stay_with_the_node_they_were_registered_on():
    """Nodes share one empty, read-only mapping of hooks until one needs its own: a hook
    or ``retain_grad`` on one op's output must not reach another node's gradients, and
    each gradient must match PyTorch's."""
    seen = {}
    results = {}
    for lib in (mt, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a = x * 2
        b = x * 3
        c = a * b
        a.register_hook(lambda g, lib=lib: seen.setdefault(lib.__name__, []).append(g.tolist()) or g * 10)
        b.retain_grad()
        c.sum().backward()
        results[lib.__name__] = (x.grad.tolist(), b.grad.tolist(), a.grad)
    assert seen["minitorch"] == seen["torch"] == [[3.0, 6.0, 9.0]]
    assert results["minitorch"] == results["torch"]
    assert results["minitorch"][2] is None  # a hook alone does not retain a's gradient
    plain = (mt.tensor([1.0], requires_grad=True) * 2).grad_fn
    assert not plain.tensor_hooks and not plain.retained
    with pytest.raises(TypeError):  # the shared empty mapping cannot be written by mistake
        plain.tensor_hooks[0] = []
