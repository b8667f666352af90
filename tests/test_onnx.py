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
