"""Checks for the layout exercises (chapters 1 and 2): index arithmetic and view rules.

Each check runs the student's function on a few hundred layouts (contiguous, transposed,
sliced with an offset, broadcast with stride 0) and compares with ``minitorch/layout.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from minitorch import layout
from minitorch.course.cases import random_layouts, random_shape, rng
from minitorch.course.report import CheckFailed, call_student, checker, describe_layout, fail


def _as_layout(result: object) -> tuple:
    """Normalise a returned ``(shape, strides, offset)`` so lists and tuples compare."""
    if not (isinstance(result, (tuple, list)) and len(result) == 3):
        raise CheckFailed(f"expected a tuple (shape, strides, offset) but your function returned {result!r}")
    shape, strides, offset = result
    return tuple(int(s) for s in shape), tuple(int(s) for s in strides), int(offset)


# --------------------------------------------------------------------------------------
# Chapter 1: index <-> position
# --------------------------------------------------------------------------------------


@checker
def check_index_to_position(student: Callable) -> str:
    """``student(index, strides, offset)`` must return the storage position."""
    __tracebackhide__ = True
    generator = rng(1)
    count = 0
    for shape, strides, offset, _kind in random_layouts(generator, 200):
        index = tuple(generator.randrange(size) for size in shape)
        case = f"index {index} in a tensor with {describe_layout(shape, strides, offset)}"
        got = call_student("index_to_position", student, index, strides, offset, case=case)
        expected = layout.index_to_position(index, strides, offset)
        count += 1
        if got == expected:
            continue
        dot = sum(i * s for i, s in zip(index, strides))
        hint = ""
        if got == dot and offset:
            hint = "you forgot the offset: the element (0, 0, ...) sits at `offset`, not at 0."
        elif got == offset + sum(i * s for i, s in zip(index, reversed(strides))):
            hint = "index[d] must be multiplied by strides[d] (same d), not by the mirrored stride."
        elif got == offset + sum(index):
            hint = "multiply each index by its stride: one step along dimension d jumps strides[d]."
        raise fail("index_to_position", case, expected, got, hint)
    return f"index_to_position agrees with the reference on {count} cases (offsets, transposed, stride 0)."


@checker
def check_ordinal_to_index(student: Callable) -> str:
    """``student(ordinal, shape, out_index)`` must write the row-major multi-index."""
    __tracebackhide__ = True
    generator = rng(2)
    count = 0
    for _ in range(150):
        shape = random_shape(generator, min_ndim=1)
        size = layout.numel(shape)
        for ordinal in sorted({0, size - 1, generator.randrange(size)}):
            out_index = [0] * len(shape)
            case = f"ordinal {ordinal} in shape {shape}"
            returned = call_student("ordinal_to_index", student, ordinal, shape, out_index,
                                    case=case)  # fmt: skip
            got = list(out_index)
            if returned is not None and got == [0] * len(shape):
                got = list(returned)  # accept a returned index too
            expected = [0] * len(shape)
            layout.ordinal_to_index(ordinal, shape, expected)
            count += 1
            if got == expected:
                continue
            first_fastest, remaining = [], ordinal
            for size in shape:
                first_fastest.append(remaining % size)
                remaining //= size
            hint = ""
            if got == expected[::-1] or got == first_fastest:
                hint = "the *last* dimension changes fastest (row-major): peel digits off from the right."
            elif any(g >= s for g, s in zip(got, shape)):
                hint = "each index must stay below its size: use `% shape[d]` and then `// shape[d]`."
            raise fail("ordinal_to_index", case + " (written into out_index)", expected, got, hint)
    return f"ordinal_to_index agrees with the reference on {count} cases."


@checker
def check_contiguous_strides(student: Callable) -> str:
    """``student(shape)`` must return row-major strides."""
    __tracebackhide__ = True
    generator = rng(3)
    shapes = [(), (5,), (2, 3), (4, 1, 3), (1, 1), (2, 3, 4, 5)]
    shapes += [random_shape(generator) for _ in range(100)]
    for shape in shapes:
        case = f"shape {shape}"
        got = call_student("contiguous_strides", student, shape, case=case)
        expected = layout.contiguous_strides(shape)
        got = tuple(int(s) for s in got) if got is not None else None
        if got == expected:
            continue
        hint = ""
        if got is not None and got == expected[::-1]:
            hint = "build the strides from the right: the last dimension has stride 1."
        elif got == tuple(shape):
            hint = "a stride is not a size: it is the product of the sizes of the later dimensions."
        raise fail("contiguous_strides", case, expected, got, hint)
    return f"contiguous_strides agrees with the reference on {len(shapes)} shapes."


# --------------------------------------------------------------------------------------
# Chapter 2: views and broadcasting
# --------------------------------------------------------------------------------------


@checker
def check_permute(student: Callable) -> str:
    """``student(shape, strides, offset, dims)`` -> the permuted layout."""
    __tracebackhide__ = True
    generator = rng(4)
    count = 0
    for shape, strides, offset, _kind in random_layouts(generator, 160):
        dims = list(range(len(shape)))
        generator.shuffle(dims)
        case = f"permute({tuple(dims)}) of a tensor with {describe_layout(shape, strides, offset)}"
        got = _as_layout(call_student("permute", student, shape, strides, offset, tuple(dims),
                                      case=case))  # fmt: skip
        expected = layout.permute(shape, strides, offset, dims)
        count += 1
        if got == expected:
            continue
        hint = ""
        if got[1] == strides and strides != expected[1]:
            hint = "the strides must move together with their sizes: new strides[d] = strides[dims[d]]."
        elif got[2] != offset:
            hint = "permute does not move the first element: the offset stays the same."
        raise fail("permute", case, expected, got, hint)
    return f"permute agrees with the reference on {count} layouts."


@checker
def check_narrow(student: Callable) -> str:
    """``student(shape, strides, offset, dim, start, length)`` -> the narrowed layout."""
    __tracebackhide__ = True
    generator = rng(5)
    count = 0
    for shape, strides, offset, _kind in random_layouts(generator, 160):
        dim = generator.randrange(len(shape))
        start = generator.randrange(shape[dim])
        length = generator.randint(0, shape[dim] - start)
        case = (f"narrow(dim={dim}, start={start}, length={length}) of a tensor with "
                f"{describe_layout(shape, strides, offset)}")  # fmt: skip
        got = _as_layout(call_student("narrow", student, shape, strides, offset, dim, start, length,
                                      case=case))  # fmt: skip
        new_shape = shape[:dim] + (length,) + shape[dim + 1 :]
        expected = (new_shape, strides, offset + start * strides[dim])
        count += 1
        if got == expected or (length == 0 and got[:2] == expected[:2]):
            continue
        hint = ""
        if got[2] == offset and start:
            hint = "the view must start at element `start`: move the offset by start * strides[dim]."
        elif got[2] == offset + start:
            hint = "moving `start` steps along `dim` jumps start * strides[dim] cells, not `start`."
        elif got[1] != strides:
            hint = "narrowing keeps every stride: the elements are still as far apart as before."
        raise fail("narrow", case, expected, got, hint)
    return f"narrow agrees with the reference on {count} layouts."


@checker
def check_expand(student: Callable) -> str:
    """``student(shape, strides, offset, sizes)`` -> the broadcast (stride-0) layout."""
    __tracebackhide__ = True
    generator = rng(6)
    count = 0
    for shape, strides, offset, _kind in random_layouts(generator, 160):
        extra = generator.randint(0, 2)
        sizes = tuple(generator.choice([2, 3]) for _ in range(extra))
        sizes += tuple(generator.choice([3, 4]) if s == 1 else s for s in shape)
        case = f"expand{sizes} of a tensor with {describe_layout(shape, strides, offset)}"
        got = _as_layout(call_student("expand", student, shape, strides, offset, sizes, case=case))
        expected = layout.expand(shape, strides, offset, sizes)
        count += 1
        if got == expected:
            continue
        hint = ""
        stretched = [d for d in range(len(sizes)) if expected[1][d] == 0]
        if got[0] == expected[0] and any(got[1][d] != 0 for d in stretched if d < len(got[1])):
            hint = ("a stretched (or new leading) dimension needs stride 0, so that every index "
                    "along it reads the same storage cell.")  # fmt: skip
        elif len(got[1]) != len(sizes):
            hint = "the result has one stride per requested size (new dimensions go in front)."
        raise fail("expand", case, expected, got, hint)
    for shape, sizes in [((3,), (4,)), ((2, 3), (2, 4))]:
        count += 1
        strides = layout.contiguous_strides(shape)
        case = f"expand{sizes} of shape {shape} (size {shape[-1]} cannot become {sizes[-1]})"
        try:
            result = call_student("expand", student, shape, strides, 0, sizes, case=case,
                                  allowed=(RuntimeError, ValueError))  # fmt: skip
        except (RuntimeError, ValueError):
            continue
        raise fail(
            "expand",
            case,
            "an error (RuntimeError)",
            result,
            "only dimensions of size 1 can be stretched; raise RuntimeError otherwise.",
        )
    return f"expand agrees with the reference on {count} cases, errors included."


@checker
def check_broadcast_shapes(student: Callable) -> str:
    """``student(shape_a, shape_b)`` -> the broadcast shape, or raise for incompatible ones."""
    __tracebackhide__ = True
    generator = rng(7)
    pairs = [((3,), (2, 3)), ((4, 1, 3), (2, 1)), ((), (2,)), ((1,), (5, 1, 1)), ((2, 3), (3, 2)),
             ((3,), (4,)), ((2, 1), (1, 3)), ((5, 4), (1,))]  # fmt: skip
    for _ in range(200):
        a = random_shape(generator)
        b = tuple(generator.choice([1, s, s]) for s in a[generator.randint(0, len(a)) :])
        b = tuple(generator.choice([2, 3]) for _ in range(generator.randint(0, 2))) + b
        if generator.random() < 0.3:
            a, b = b, a
        if generator.random() < 0.15 and b:
            b = b[:-1] + (b[-1] + 5,)  # usually incompatible
        pairs.append((a, b))
    for a, b in pairs:
        case = f"broadcast_shapes({a}, {b})"
        try:
            expected = layout.broadcast_shapes(a, b)
        except RuntimeError:
            expected = None
        try:
            got = call_student("broadcast_shapes", student, a, b, case=case,
                               allowed=(RuntimeError, ValueError))  # fmt: skip
        except (RuntimeError, ValueError) as error:
            if expected is None:
                continue
            raise fail(
                "broadcast_shapes",
                case,
                expected,
                f"an error: {error}",
                "align the shapes from the right; a missing dimension counts as 1.",
            ) from None
        if expected is None:
            raise fail("broadcast_shapes", case, "an error (RuntimeError)", got,
                       "two sizes that differ and are both bigger than 1 cannot be broadcast: "
                       "raise RuntimeError (or ValueError).")  # fmt: skip
        got = tuple(int(s) for s in got)
        if got != expected:
            hint = ""
            if len(got) == min(len(a), len(b)):
                hint = "the result has as many dimensions as the longer shape."
            raise fail("broadcast_shapes", case, expected, got, hint)
    return f"broadcast_shapes agrees with the reference on {len(pairs)} pairs, errors included."
