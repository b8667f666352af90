"""minitorch.onnx.export: the exported model, run by onnxruntime, computes what minitorch
computes (float32 tolerance), for the layers of the course, a trained digits CNN and the
primitives the exporter translates one by one."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minitorch
from minitorch import nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def run_exported(model, args, **options):
    """Export ``model`` on ``args`` into memory; return onnxruntime's outputs and the model."""
    args = args if isinstance(args, tuple) else (args,)
    buffer = io.BytesIO()
    proto = minitorch.onnx.export(model, args, buffer, **options)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    tensors = [a for a in args if isinstance(a, minitorch.Tensor)]
    feed = {i.name: t.numpy() for i, t in zip(session.get_inputs(), tensors)}
    return session.run(None, feed), proto


def check_model(model, *args, atol=1e-5):
    if isinstance(model, nn.Module):
        model.eval()
    outputs, proto = run_exported(model, args)
    with minitorch.no_grad():
        expected = model(*args)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        want = want.numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol)
    return proto


def op_types(proto) -> set[str]:
    return {node.op_type for node in proto.graph.node}


@pytest.fixture(autouse=True)
def seed():
    minitorch.manual_seed(0)


LAYERS = {
    "linear": lambda: (nn.Linear(5, 3), (4, 5)),
    "linear_no_bias_3d": lambda: (nn.Linear(5, 3, bias=False), (2, 4, 5)),
    "conv2d": lambda: (nn.Conv2d(2, 3, 3), (2, 2, 7, 6)),
    "conv2d_stride_padding": lambda: (nn.Conv2d(2, 4, (3, 2), stride=2, padding=1), (2, 2, 9, 8)),
    "conv2d_dilation": lambda: (nn.Conv2d(1, 2, 3, dilation=2, bias=False), (1, 1, 9, 9)),
    "conv1d": lambda: (nn.Conv1d(3, 2, 3, padding=1), (2, 3, 10)),
    "maxpool2d": lambda: (nn.MaxPool2d(2), (2, 3, 8, 8)),
    "maxpool2d_stride_padding": lambda: (nn.MaxPool2d(3, stride=2, padding=1), (1, 2, 9, 7)),
    "avgpool2d": lambda: (nn.AvgPool2d(2), (2, 3, 8, 6)),
    "adaptive_avgpool2d": lambda: (nn.AdaptiveAvgPool2d(1), (2, 3, 4, 4)),
    "batchnorm1d": lambda: (nn.BatchNorm1d(4), (6, 4)),
    "batchnorm2d": lambda: (nn.BatchNorm2d(3), (2, 3, 4, 5)),
    "layernorm": lambda: (nn.LayerNorm(6), (3, 4, 6)),
    "relu": lambda: (nn.ReLU(), (3, 4)),
    "leaky_relu": lambda: (nn.LeakyReLU(0.1), (3, 4)),
    "tanh": lambda: (nn.Tanh(), (3, 4)),
    "sigmoid": lambda: (nn.Sigmoid(), (3, 4)),
    "gelu": lambda: (nn.GELU(), (3, 4)),
    "silu": lambda: (nn.SiLU(), (3, 4)),
    "softmax": lambda: (nn.Softmax(dim=1), (3, 5)),
    "log_softmax": lambda: (nn.LogSoftmax(dim=-1), (2, 3, 5)),
    "flatten": lambda: (nn.Flatten(), (2, 3, 4)),
    "dropout_eval": lambda: (nn.Dropout(0.5), (4, 6)),
    "mlp": lambda: (nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)),
                    (16, 2)),
}  # fmt: skip


@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_minitorch(name):
    model, shape = LAYERS[name]()
    if "batchnorm" in name:
        model.running_mean.copy_(minitorch.randn(*model.running_mean.shape))  # not the defaults
        model.running_var.copy_(minitorch.rand(*model.running_var.shape) + 0.5)
    check_model(model, minitorch.randn(*shape))


def test_batchnorm_in_eval_uses_running_statistics_and_training_mode_is_restored():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
    model.train()
    for _ in range(3):  # move the running statistics
        model(minitorch.randn(8, 3))
    x = minitorch.randn(5, 3)
    (got,), _ = run_exported(model, x)
    assert model.training and model[1].training
    model.eval()
    with minitorch.no_grad():
        np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_strided_example_inputs_are_exported_as_plain_tensors():
    """A transposed, a sliced and an expanded example input: the ONNX input is a plain
    tensor of that shape, and the model computes on the values."""
    model = nn.Linear(4, 2)
    base = minitorch.randn(4, 6)
    for x in (base.t(), base[:, 1:5], minitorch.randn(1, 4).expand(3, 4)):
        check_model(model, x)


def test_dtypes_edge_shapes_and_reversed_views():
    """float64 and float16 models, a 0-d and an empty input, a flipped view (negative
    strides: read with a Gather of its positions)."""
    check_model(lambda a: (a * 2).sum(), minitorch.randn(3, dtype=minitorch.float64))
    check_model(lambda a: a.exp() * 2, minitorch.randn(3).half(), atol=1e-3)
    check_model(lambda a: a * 3 + 1, minitorch.tensor(2.0))
    check_model(lambda a: (a.sum(dim=0), a * 2), minitorch.randn(0, 4))
    check_model(lambda a: a.flip(0) + a.flip(1), minitorch.randn(3, 4))


def test_exports_the_kernel_calls_of_the_reference_backend_too():
    with minitorch.backend("reference"):
        model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.MaxPool2d(2))
        check_model(model, minitorch.randn(1, 1, 4, 4))


def test_two_inputs_two_outputs_and_their_names():
    def f(x, y):
        return x @ y, (x - 1).exp().sum(dim=0)

    x, y = minitorch.randn(3, 4), minitorch.randn(4, 2)
    check_model(f, x, y)
    (product, total), proto = run_exported(f, (x, y), input_names=["a", "b"], output_names=["p", "s"])
    assert [i.name for i in proto.graph.input] == ["a", "b"]
    assert [o.name for o in proto.graph.output] == ["p", "s"]
    (default_names, _), proto = run_exported(f, (x, y))
    assert [i.name for i in proto.graph.input] == ["x", "y"]


def test_writes_a_file_that_onnx_loads(tmp_path):
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    path = tmp_path / "model.onnx"
    assert minitorch.onnx.export(model, minitorch.randn(2, 3), str(path)) is not None
    loaded = onnx.load(str(path))
    onnx.checker.check_model(loaded)
    names = {init.name for init in loaded.graph.initializer}
    assert {"0.weight", "0.bias"} <= names  # parameters keep their names


def test_views_are_read_with_cheap_ops():
    """Broadcasting is an Expand, a transpose a Transpose, the im2col windows a Gather."""
    proto = check_model(nn.Linear(4, 3), minitorch.randn(2, 4))
    assert {"Expand", "Transpose", "MatMul"} <= op_types(proto) and "Gather" not in op_types(proto)
    proto = check_model(nn.Conv2d(1, 2, 3, padding=1), minitorch.randn(1, 1, 5, 5))
    assert {"Gather", "ScatterND"} <= op_types(proto)  # windows; the padded interior


def test_primitives_one_by_one():
    x = minitorch.randn(3, 4)
    y = minitorch.randn(3, 4)
    n = minitorch.tensor([[3, -7, 5, 0], [-2, 9, 4, -1], [8, 1, -6, 2]])
    check_model(lambda a, b: (a.abs().sqrt().log1p(), a.rsqrt().nan_to_num(0.0), a.sin() * b.cos()), x, y)
    check_model(lambda a, b: (a // b, a % b, a.floor(), a.ceil(), a.sign(), a.reciprocal()), x, y)
    check_model(lambda a, b: (a.maximum(b), a.minimum(b), a.pow(2), a.clamp(-0.5, 0.5)), x, y)
    check_model(lambda a, b: (a < b, a <= b, a > b, a >= b, a == b, a != b), x, y)
    check_model(lambda a, b: ((a > 0) & (b > 0), (a > 0) | (b > 0), ~(a > 0)), x, y)
    check_model(lambda a, b: minitorch.where(a > b, a, b * 2), x, y)
    check_model(lambda a: (a.sum(), a.prod(dim=1), a.amax(dim=0), a.amin(dim=1), a.mean(dim=-1)), x)
    check_model(lambda a: ((a > 0).any(dim=1), (a > -5).all(dim=0), a.argmax(dim=1), a.argmin(dim=0)), x)
    check_model(lambda a: (a.cumsum(dim=1), a.t().contiguous(), a[1:, ::2] * 3), x)
    check_model(lambda a: (a % 4, a // 3, a * a, a.max(dim=1).values), n)
    check_model(lambda a: a.to(minitorch.float32) * 0.5 + a.sum(dim=1, keepdim=True), n)


def test_gather_scatter_add_and_embedding():
    x = minitorch.randn(4, 5)
    index = minitorch.tensor([[0, 4, 1], [2, 2, 3], [1, 0, 0]])
    check_model(lambda a, i: a.gather(1, i), x, index)
    check_model(lambda a, i: minitorch.zeros(3, 6).scatter_add(1, i, a), x, index)
    check_model(nn.Embedding(10, 3), minitorch.tensor([[1, 9, 4], [0, 0, 7]]))


def test_cross_entropy_loss_of_a_model():
    model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
    loss = nn.CrossEntropyLoss()
    check_model(lambda x, t: loss(model(x), t), minitorch.randn(6, 4), minitorch.tensor([0, 2, 1, 1, 0, 2]))


def test_trained_digits_cnn():
    digits = pytest.importorskip("minitorch.data.digits")
    pytest.importorskip("sklearn")
    data = digits.Digits(train=True)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(16 * 2 * 2, 10), nn.LogSoftmax(dim=1),
    )  # fmt: skip
    optimizer = minitorch.optim.Adam(model.parameters(), lr=0.01)
    for start in range(0, 640, 64):  # a few steps: the weights and running stats move
        optimizer.zero_grad()
        loss = nn.functional.nll_loss(model(data.data[start : start + 64]), data.targets[start : start + 64])
        loss.backward()
        optimizer.step()
    images = data.data[:32]
    (log_probabilities,), _ = run_exported(model, images)
    model.eval()
    with minitorch.no_grad():
        expected = model(images).numpy()
    np.testing.assert_allclose(log_probabilities, expected, rtol=1e-4, atol=1e-5)
    assert (log_probabilities.argmax(1) == expected.argmax(1)).all()


def test_the_shape_is_fixed_to_the_example():
    """A traced export: the batch size is the example's (no dynamic axes)."""
    model = nn.Linear(3, 2)
    buffer = io.BytesIO()
    minitorch.onnx.export(model, minitorch.randn(4, 3), buffer)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    assert session.get_inputs()[0].shape == [4, 3]
    with pytest.raises(Exception, match="(?i)dimension|shape"):
        session.run(None, {session.get_inputs()[0].name: np.zeros((5, 3), np.float32)})


def test_unsupported_kernel_names_op_and_primitive():
    with pytest.raises(minitorch.onnx.UnsupportedOperatorError, match=r"(?i)cannot export sort.*sort"):
        minitorch.onnx.export(lambda a: a.sort(dim=1).values, minitorch.randn(3, 4), io.BytesIO())
    with pytest.raises(minitorch.onnx.UnsupportedOperatorError, match=r"Cumprod.*scan:prod"):
        minitorch.onnx.export(lambda a: a.cumprod(dim=0), minitorch.randn(3, 3), io.BytesIO())
    assert issubclass(minitorch.onnx.UnsupportedOperatorError, RuntimeError)


def test_value_dependent_python_is_refused():
    def f(x):
        return x * 2 if x.sum().item() > 0 else x

    with pytest.raises(minitorch.compiler.CaptureError, match="records one run.*reads a tensor's value"):
        minitorch.onnx.export(f, minitorch.randn(3), io.BytesIO())


def test_old_opset_is_refused():
    with pytest.raises(ValueError, match="opset"):
        minitorch.onnx.export(nn.ReLU(), minitorch.randn(2), io.BytesIO(), opset_version=13)


# ----- issue 29: zero-size dims, constant keys, NaN, exact remainder, clear refusals ----


def test_zero_size_dimensions():
    """A 0 in a Reshape's shape means "copy the input's dim" unless allowzero=1: inputs
    and results with a 0-sized dimension keep their shapes."""
    check_model(lambda a: a * 2, minitorch.randn(3, 0))
    check_model(lambda a: ((a + 1).sum(dim=1), a.amax(dim=0)), minitorch.randn(3, 0))
    check_model(lambda a: a.permute(2, 0, 1) + 1, minitorch.randn(2, 0, 3))
    check_model(lambda a, b: (a @ b, b.t() * 3), minitorch.randn(3, 0), minitorch.randn(0, 2))
    empty, full = minitorch.randn(5, 0), minitorch.randn(2, 3)
    check_model(lambda a, b: (a.sum(dim=0), b * 2, a.cumsum(dim=1)), empty, full)


def test_constants_are_keyed_by_dtype_shape_and_bytes():
    """``cumsum``'s 0-d axis and ``sum``'s 1-D axes hold the same number: two constants."""
    check_model(lambda a: a.cumsum(1).sum(1), minitorch.randn(3, 4))
    check_model(lambda a: (a.cumsum(0).amax(0), a.cumsum(1).prod(1)), minitorch.randn(3, 4))
    builder = minitorch.onnx.views.OnnxGraphBuilder([], None, 18)
    values = (np.int64(1), np.array([1]), np.int32(1), np.float32(1), np.float32(-0.0))
    names = [builder.shared(v) for v in values]
    assert len(set(names)) == 5
    assert builder.shared(np.array([1])) == names[1] and builder.ints([1]) == names[1]
    assert builder.ints(1) == names[0]


NAN = float("nan")
WITH_NAN = [[1.0, NAN, 3.0, -2.0], [1.0, 2.0, 0.5, 2.0], [NAN, 1.0, NAN, -np.inf], [NAN, NAN, NAN, NAN]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_min_and_argmax_propagate_nan_as_pytorch(dtype):
    """A row holding NaN: its max and min are NaN and argmax/argmin point at its first NaN."""
    torch = pytest.importorskip("torch")
    x = minitorch.tensor(WITH_NAN, dtype=getattr(minitorch, dtype))

    def f(a):
        return (a.max(dim=1).values, a.max(dim=1).indices, a.min(dim=0).values, a.min(dim=0).indices,
                a.amax(dim=1), a.amin(dim=0), a.argmax(dim=1), a.argmin(dim=0), a.max(), a.min(), a.argmax(),
                a[1].max(), a[1].argmin())  # fmt: skip

    outputs, _ = run_exported(f, x)
    expected = f(torch.from_numpy(x.numpy()))
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_array_equal(got, want.numpy())  # NaN where torch has NaN
    check_model(f, x)  # and as minitorch eager


def test_float_remainder_and_floor_division_match_pytorch_bit_for_bit():
    """``a % b`` and ``a // b`` from the exact ``fmod``, as PyTorch: ``1e7 % -0.75`` is
    -0.5 (``a - floor(a / b) * b`` says 0), signed zeros, infinities and NaN included.
    ``a / b`` stays finite: past float32's range PyTorch's vectorized loop answers NaN
    where its scalar one (C's fmod, as here) answers ``3e38 % 0.75 = 0.5``."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    special = [1e7, -1e7, 12345678.9, -3.3, 1e30, -1e30, 7.5, -7.5, 0.0, -0.0, np.inf, -np.inf, NAN]
    for dtype in (np.float32, np.float64):
        large = rng.standard_normal(40) * 10.0 ** rng.integers(-3, 25, 40)
        a = np.concatenate([special, large]).astype(dtype)
        divisors = [-0.75, 0.75, -7.0, 1e-3, 0.0, -0.0, np.inf, NAN]
        b = np.concatenate([divisors, rng.standard_normal(8)]).astype(dtype)
        a, b = np.repeat(a, len(b)), np.tile(b, len(a))
        x, y = minitorch.tensor(a), minitorch.tensor(b)
        (remainder, quotient, by_scalar), _ = run_exported(lambda p, q: (p % q, p // q, p % -0.75), (x, y))
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        for got, want in ((remainder, ta % tb), (quotient, ta // tb), (by_scalar, ta % -0.75)):
            want = want.numpy()
            np.testing.assert_array_equal(got, want)
            numbers = ~np.isnan(want)
            np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))
        np.testing.assert_array_equal(quotient, (x // y).numpy())  # and minitorch eager's values
        np.testing.assert_array_equal(remainder, (x % y).numpy())


def test_an_onnx_op_on_a_type_it_does_not_take_names_the_op(tmp_path):
    """Bool masks: what ONNX has ops for is exported; ``mask + mask`` (ONNX's Add takes no
    booleans) is refused before anything is written, naming the kernel and the type."""
    x = minitorch.randn(3, 4)
    check_model(lambda a: (a.masked_fill(a > 0, 0.0), (a > 0).sum(dim=1), (a > 0) & (a < 1), ~(a > 0)), x)
    check_model(lambda a: ((a > 0) == (a < 1), minitorch.where(a > 0, a, -a), (a > 0).float() * a), x)
    path = tmp_path / "model.onnx"
    refused = {
        lambda a: (a > 0) + (a > 1): r"cannot export .*zip:add\): ONNX Add \(opset 18\) does not take bool",
        lambda a: (a > 0) * (a < 1): r"zip:mul\): ONNX Mul \(opset 18\) does not take bool",
        lambda a: (a > 0) < (a < 1): r"zip:lt\): ONNX Less \(opset 18\) does not take bool",
        lambda a: (a > 0).amax(dim=1): r"reduce:max\): ONNX ReduceMax \(opset 18\) does not take bool",
    }
    for f, message in refused.items():
        with pytest.raises(minitorch.onnx.UnsupportedOperatorError, match=message):
            minitorch.onnx.export(f, x, str(path))
        assert not path.exists()
    (got,), _ = run_exported(lambda a: (a > 0).amax(dim=1), x, opset_version=20)  # ReduceMax takes bool there
    np.testing.assert_array_equal(got, (x > 0).amax(dim=1).numpy())


def test_a_file_descriptor_is_refused_and_left_open():
    """As torch.onnx.export, ``f`` is a path or a file object: an int is refused, and the
    descriptor is neither written nor closed."""
    import os

    read_end, write_end = os.pipe()
    try:
        with pytest.raises(TypeError, match="path or a binary file object.*closefd=False"):
            minitorch.onnx.export(nn.ReLU(), minitorch.randn(2), write_end)
        os.fstat(write_end)  # still open
        os.close(write_end)
        assert os.read(read_end, 100) == b""  # nothing written
    finally:
        os.close(read_end)
    with open(os.devnull, "wb") as sink:  # a file object works
        minitorch.onnx.export(nn.ReLU(), minitorch.randn(2), sink)


def test_opsets_outside_the_supported_range_are_refused():
    from minitorch.onnx import exporter  # (imported on the first export: maybe not yet)

    newest = min(exporter.NEWEST_OPSET, onnx.defs.onnx_opset_version())
    for opset in (13, 17, newest + 1, 99):
        with pytest.raises(ValueError, match=f"opsets 18 to {newest}.*opset_version={opset}"):
            minitorch.onnx.export(nn.ReLU(), minitorch.randn(2), io.BytesIO(), opset_version=opset)
    with pytest.raises(TypeError, match="opset_version must be an int"):
        minitorch.onnx.export(nn.ReLU(), minitorch.randn(2), io.BytesIO(), opset_version="18")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.LogSoftmax(dim=1))
    x = minitorch.randn(2, 3)
    with minitorch.no_grad():
        expected = model(x).numpy()
    for opset in (18, newest):
        (got,), proto = run_exported(model, x, opset_version=opset)
        assert proto.opset_import[0].version == opset
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_input_and_output_names_as_torch_takes_them():
    """Fewer names than values: the rest keep their defaults; more: torch's RuntimeError;
    a name used twice: refused; a given name is kept even where a constant inside would
    have taken it (``zero``)."""

    def f(x, y):
        return x // y, x * y

    x, y = minitorch.randn(3), minitorch.randn(3) + 5
    (quotient, product), proto = run_exported(f, (x, y), input_names=["a"], output_names=["zero"])
    assert [i.name for i in proto.graph.input] == ["a", "y"]
    assert [o.name for o in proto.graph.output] == ["zero", "output1"]
    np.testing.assert_array_equal(quotient, (x // y).numpy())
    np.testing.assert_allclose(product, (x * y).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"input names provided \(3\) exceeded number of inputs \(2\)"):
        minitorch.onnx.export(f, (x, y), io.BytesIO(), input_names=["a", "b", "c"])
    with pytest.raises(RuntimeError, match=r"number of output names provided \(3\) exceeded"):
        minitorch.onnx.export(f, (x, y), io.BytesIO(), output_names=["p", "q", "r"])
    with pytest.raises(ValueError, match="names must differ"):
        minitorch.onnx.export(f, (x, y), io.BytesIO(), input_names=["a", "a"])
    with pytest.raises(ValueError, match="names must differ"):
        minitorch.onnx.export(f, (x, y), io.BytesIO(), output_names=["x"])
    with pytest.raises(TypeError, match="list of strings"):
        minitorch.onnx.export(f, (x, y), io.BytesIO(), input_names="ab")
