"""Every homework check accepts a correct solution, rejects typical wrong ones with a
helpful message, and reports unfinished code as "not done yet" instead of failing."""

from __future__ import annotations

import importlib.util

import pytest

from minitorch import course
from minitorch.autograd import Function
from minitorch.course import CheckFailed
from minitorch.layout import index_to_position, numel, ordinal_to_index
from tests.course.notebooks import SOLUTIONS


def load_solutions(stem: str):
    spec = importlib.util.spec_from_file_location(f"solutions_{stem}", SOLUTIONS / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ch1 = load_solutions("01_tensors_storage_strides")
ch2 = load_solutions("02_views_broadcasting")
ch3 = load_solutions("03_dispatch_kernels")
ch4 = load_solutions("04_autograd")


def not_done(*args):
    raise NotImplementedError


def rejects(check, wrong, *words: str, **kwargs) -> None:
    """``check(wrong)`` raises CheckFailed whose message contains every word."""
    with pytest.raises(CheckFailed) as failure:
        check(wrong, **kwargs)
    message = str(failure.value)
    for word in words:
        assert word in message, f"expected {word!r} in the explanation:\n{message}"


# ----- every check: correct passes, NotImplementedError is "not done yet" -------------

CORRECT = [
    (course.check_index_to_position, ch1.index_to_position, {}),
    (course.check_ordinal_to_index, ch1.ordinal_to_index, {}),
    (course.check_contiguous_strides, ch1.contiguous_strides, {}),
    (course.check_permute, ch2.permute, {}),
    (course.check_narrow, ch2.narrow, {}),
    (course.check_expand, ch2.expand, {}),
    (course.check_broadcast_shapes, ch2.broadcast_shapes, {}),
    (course.check_map_kernel, ch3.map_kernel, {}),
    (course.check_zip_kernel, ch3.zip_kernel, {}),
    (course.check_sum_kernel, ch3.sum_kernel, {}),
    (course.check_topological_order, ch4.topological_order, {}),
]


@pytest.mark.parametrize("check, solution, kwargs", CORRECT, ids=lambda v: getattr(v, "__name__", ""))
def test_correct_solution_passes(check, solution, kwargs, capsys) -> None:
    assert check(solution, **kwargs)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("check, solution, kwargs", CORRECT, ids=lambda v: getattr(v, "__name__", ""))
def test_unfinished_code_is_not_done_yet(check, solution, kwargs, capsys) -> None:
    assert not check(not_done, **kwargs)
    assert "not done yet" in capsys.readouterr().out


def test_functions_pass_and_unfinished_functions_are_not_done(capsys) -> None:
    assert course.check_function(ch4.Softplus, lambda x: x.exp().log1p(), cases=10)
    assert course.check_function(ch4.Hypot, lambda a, b: (a * a + b * b).sqrt(), arity=2,
                                  positive=True, cases=10)  # fmt: skip

    class Unfinished(Function):
        @staticmethod
        def forward(ctx, x):
            raise NotImplementedError

    assert not course.check_function(Unfinished, lambda x: x.exp())
    assert "not done yet" in capsys.readouterr().out


# ----- chapter 1 ---------------------------------------------------------------------


def test_index_to_position_rejects_typical_mistakes() -> None:
    rejects(
        course.check_index_to_position,
        lambda index, strides, offset: sum(i * s for i, s in zip(index, strides)),
        "offset",
    )
    rejects(
        course.check_index_to_position,
        lambda index, strides, offset: offset + sum(i * s for i, s in zip(index, strides[::-1])),
        "mirrored",
    )
    rejects(course.check_index_to_position, lambda index, strides, offset: offset + sum(index),
            "stride")  # fmt: skip


def test_student_exceptions_are_explained() -> None:
    rejects(course.check_index_to_position, lambda index, strides, offset: index[5],
            "IndexError", "on this case")  # fmt: skip


def test_ordinal_to_index_rejects_first_dimension_fastest() -> None:
    def column_major(ordinal, shape, out_index):
        for d in range(len(shape)):
            out_index[d] = ordinal % shape[d]
            ordinal //= shape[d]

    rejects(course.check_ordinal_to_index, column_major, "last")


def test_contiguous_strides_rejects_reversed_and_sizes() -> None:
    rejects(course.check_contiguous_strides, lambda shape: ch1.contiguous_strides(shape)[::-1],
            "from the right")  # fmt: skip
    rejects(course.check_contiguous_strides, lambda shape: tuple(shape), "product")


# ----- chapter 2 ---------------------------------------------------------------------


def test_permute_rejects_unpermuted_strides() -> None:
    rejects(course.check_permute,
            lambda shape, strides, offset, dims: (tuple(shape[d] for d in dims), strides, offset),
            "strides must move")  # fmt: skip


def test_narrow_rejects_wrong_offsets() -> None:
    def keep_offset(shape, strides, offset, dim, start, length):
        return shape[:dim] + (length,) + shape[dim + 1 :], strides, offset

    def offset_plus_start(shape, strides, offset, dim, start, length):
        return shape[:dim] + (length,) + shape[dim + 1 :], strides, offset + start

    rejects(course.check_narrow, keep_offset, "start * strides[dim]")
    rejects(course.check_narrow, offset_plus_start, "not `start`")


def test_expand_rejects_nonzero_strides_and_missing_errors() -> None:
    def keeps_strides(shape, strides, offset, sizes):
        extra = len(sizes) - len(shape)
        return tuple(sizes), (1,) * extra + tuple(strides), offset

    def never_raises(shape, strides, offset, sizes):
        try:
            return ch2.expand(shape, strides, offset, sizes)
        except RuntimeError:
            return tuple(sizes), (0,) * len(sizes), offset

    rejects(course.check_expand, keeps_strides, "stride 0")
    rejects(course.check_expand, never_raises, "raise RuntimeError")


def test_broadcast_shapes_rejects_left_alignment_and_missing_errors() -> None:
    def left_aligned(a, b):
        n = max(len(a), len(b))
        a, b = tuple(a) + (1,) * (n - len(a)), tuple(b) + (1,) * (n - len(b))
        return tuple(max(x, y) for x, y in zip(a, b))

    def never_raises(a, b):
        try:
            return ch2.broadcast_shapes(a, b)
        except RuntimeError:
            return ()

    rejects(course.check_broadcast_shapes, left_aligned, "broadcast_shapes")
    rejects(course.check_broadcast_shapes, never_raises, "RuntimeError")


# ----- chapter 3 ---------------------------------------------------------------------


def test_map_kernel_rejects_contiguous_assumption() -> None:
    def as_if_contiguous(f, out, a):
        for i in range(numel(out.shape)):
            out.storage[out.offset + i] = f(a.storage[a.offset + i])

    rejects(course.check_map_kernel, as_if_contiguous, "map_kernel")


def test_map_kernel_rejects_ignoring_the_output_layout() -> None:
    def contiguous_output(f, out, a):
        index = [0] * len(out.shape)
        for i in range(numel(out.shape)):
            ordinal_to_index(i, out.shape, index)
            out.storage[i] = f(a.storage[index_to_position(index, a.strides, a.offset)])

    rejects(course.check_map_kernel, contiguous_output, "out")


def test_zip_kernel_rejects_shared_strides() -> None:
    def strides_of_a(f, out, a, b):
        index = [0] * len(out.shape)
        for i in range(numel(out.shape)):
            ordinal_to_index(i, out.shape, index)
            x = a.storage[index_to_position(index, a.strides, a.offset)]
            y = b.storage[index_to_position(index, a.strides, b.offset)]
            out.storage[index_to_position(index, out.strides, out.offset)] = f(x, y)

    rejects(course.check_zip_kernel, strides_of_a, "zip_kernel")


def test_sum_kernel_rejects_unreset_output_and_first_element_only() -> None:
    def adds_to_out(out, a, dim):
        index = [0] * len(a.shape)
        for i in range(numel(a.shape)):
            ordinal_to_index(i, a.shape, index)
            value = a.storage[index_to_position(index, a.strides, a.offset)]
            index[dim] = 0
            out.storage[index_to_position(index, out.strides, out.offset)] += value

    def first_only(out, a, dim):
        index = [0] * len(out.shape)
        for i in range(numel(out.shape)):
            ordinal_to_index(i, out.shape, index)
            position = index_to_position(index, out.strides, out.offset)
            out.storage[position] = a.storage[index_to_position(index, a.strides, a.offset)]

    rejects(course.check_sum_kernel, adds_to_out, "starting from 0")
    rejects(course.check_sum_kernel, first_only, "first element")


# ----- chapter 4 ---------------------------------------------------------------------


def test_function_check_rejects_a_forgotten_chain_rule() -> None:
    class NoChainRule(ch4.Softplus):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return x.sigmoid()

    rejects(course.check_function, NoChainRule, "chain rule", reference=lambda x: x.exp().log1p())


def test_function_check_rejects_swapped_gradients_and_wrong_values() -> None:
    class Swapped(ch4.Hypot):
        @staticmethod
        def backward(ctx, grad):
            a, b, h = ctx.saved_tensors
            return grad * b / h, grad * a / h

    class NoSqrt(ch4.Hypot):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b, (a * a + b * b).sqrt())
            return a * a + b * b

    def hypot(a, b):
        return (a * a + b * b).sqrt()

    rejects(course.check_function, Swapped, "order", reference=hypot, arity=2, positive=True)
    rejects(course.check_function, NoSqrt, "forward", reference=hypot, arity=2, positive=True)


def test_topological_order_rejects_breadth_first_missing_and_duplicates() -> None:
    def breadth_first_with_duplicates(root):
        order, queue = [], [root]
        while queue:
            node = queue.pop(0)
            order.append(node)
            queue.extend(child for child, _ in node.next_functions if child is not None)
        return order

    def first_level_only(root):
        return [root] + [child for child, _ in root.next_functions if child is not None]

    def depth_first_preorder(root):
        order, seen, stack = [], set(), [root]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            order.append(node)
            stack.extend(child for child, _ in node.next_functions if child is not None)
        return order

    rejects(course.check_topological_order, breadth_first_with_duplicates, "only once")
    rejects(course.check_topological_order, first_level_only, "missing")
    rejects(course.check_topological_order, depth_first_preorder, "before")


# ----- chapter 5 (Numba) -------------------------------------------------------------

from minitorch.course import numba_checks  # noqa: E402

ch5 = load_solutions("05_fast_cpu_kernels")


def test_numba_checks_accept_solutions_and_reject_mistakes(capsys) -> None:
    import numba

    assert numba_checks.check_numba_map(ch5.make_map)
    assert numba_checks.check_numba_matmul(ch5.matmul)
    assert not numba_checks.check_numba_matmul(not_done)
    assert "not done yet" in capsys.readouterr().out

    def make_contiguous_map(f):
        @numba.njit
        def kernel(out, out_shape, out_strides, out_offset, a, a_shape, a_strides, a_offset):
            size = 1
            for s in out_shape:
                size *= s
            for i in range(size):
                out[out_offset + i] = f(a[a_offset + i])

        return kernel

    def plain_python(out, a, b):
        out[:] = a @ b

    @numba.njit
    def no_reset(out, a, b):
        for i in range(a.shape[0]):
            for k in range(a.shape[1]):
                for j in range(b.shape[1]):
                    out[i, j] += a[i, k] * b[k, j]

    rejects(numba_checks.check_numba_map, make_contiguous_map, "map kernel")
    rejects(numba_checks.check_numba_matmul, plain_python, "@numba.njit")
    rejects(numba_checks.check_numba_matmul, no_reset, "start each sum from 0")


# ----- chapter 6 (CUDA C kernels on the emulator) ------------------------------------

from minitorch.course import gpu_checks  # noqa: E402

ch6 = load_solutions("06_gpu_kernels")


def _needs_cuda_compiler() -> None:
    from minitorch.backends import cuda_emulator

    if not gpu_checks.on_real_gpu() and not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())


def test_gpu_checks_accept_solutions_and_reject_mistakes(capsys) -> None:
    _needs_cuda_compiler()
    assert gpu_checks.check_saxpy_kernel(ch6.SAXPY)
    assert gpu_checks.check_tiled_matmul(ch6.TILED_MATMUL)
    assert not gpu_checks.check_saxpy_kernel("void saxpy() { /* your code here */ }")
    assert "not done yet" in capsys.readouterr().out

    guarded = "if (i < n) out[i] = alpha * x[i] + y[i];"
    assert guarded in ch6.SAXPY
    no_bounds_check = ch6.SAXPY.replace(guarded, "out[i] = alpha * x[i] + y[i];")
    thread_index_only = ch6.SAXPY.replace("blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x")
    syntax_error = ch6.SAXPY.replace(guarded, "out[i] = alpha * x[i] + y[i]")
    wrong_name = ch6.SAXPY.replace("void saxpy(", "void my_saxpy(")
    rejects(gpu_checks.check_saxpy_kernel, no_bounds_check, "wrote past the end", "if (i < n)")
    rejects(gpu_checks.check_saxpy_kernel, thread_index_only, "blockIdx.x * blockDim.x")
    rejects(gpu_checks.check_saxpy_kernel, syntax_error, "does not compile")
    rejects(gpu_checks.check_saxpy_kernel, wrong_name, "no kernel named `saxpy`")

    barrier = "__syncthreads();"
    assert ch6.TILED_MATMUL.count(barrier) == 2
    first = ch6.TILED_MATMUL.index(barrier)
    no_first_barrier = ch6.TILED_MATMUL[:first] + ch6.TILED_MATMUL[first + len(barrier) :]
    second = ch6.TILED_MATMUL.rindex(barrier)
    no_second_barrier = ch6.TILED_MATMUL[:second] + ch6.TILED_MATMUL[second + len(barrier) :]
    unguarded = ch6.TILED_MATMUL.replace("if (row < n && col < m) out", "out")
    rejects(gpu_checks.check_tiled_matmul, no_first_barrier, "tiled_matmul", "after loading a tile")
    rejects(gpu_checks.check_tiled_matmul, no_second_barrier, "tiled_matmul", "overwrites shared memory")
    rejects(gpu_checks.check_tiled_matmul, unguarded, "wrote past the end")


# ----- chapters 7 and 8 (training, convolution) ---------------------------------------

from minitorch.course import training_checks  # noqa: E402


def test_training_check_rejects_loops_that_do_not_learn() -> None:
    import minitorch

    def never_updates(model, x, y):
        training_checks.cross_entropy(model(x), y).backward()

    def replaces_parameters(model, x, y):
        loss = training_checks.cross_entropy(model(x), y)
        loss.backward()
        model.w1 = model.w1 - 0.1 * model.w1.grad

    def too_few_steps(model, x, y):
        loss = training_checks.cross_entropy(model(x), y)
        loss.backward()
        with minitorch.no_grad():
            for p in model.parameters():
                p -= 1e-4 * p.grad

    rejects(training_checks.check_training, never_updates, "did not change")
    rejects(training_checks.check_training, replaces_parameters, "in place")
    rejects(training_checks.check_training, too_few_steps, "accuracy")


ch8 = load_solutions("08_cnn_digits")


def test_conv2d_check_accepts_solution_and_rejects_mistakes() -> None:
    assert training_checks.check_conv2d(ch8.conv2d)

    def forgets_contiguous(x, weight, bias):
        N, C, H, W = x.shape
        O, _, kh, kw = weight.shape
        OH, OW = H - kh + 1, W - kw + 1
        windows = x.as_strided((N, OH, OW, C, kh, kw), (C * H * W, W, 1, H * W, W, 1), x.storage_offset())
        out = windows.reshape(N * OH * OW, C * kh * kw) @ weight.reshape(O, -1).t() + bias
        return out.view(N, OH, OW, O).permute(0, 3, 1, 2)

    def wrong_layout(x, weight, bias):
        out = ch8.conv2d(x, weight, bias)
        return out.permute(0, 1, 3, 2)

    rejects(training_checks.check_conv2d, forgets_contiguous, "contiguous")
    rejects(training_checks.check_conv2d, wrong_layout, "conv2d")
