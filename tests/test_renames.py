"""The renames of issue 17: old import paths warn and still work, new ones are PyTorch's.

``minitorch.testing.assert_close`` is compared with ``torch.testing.assert_close`` on
cases that pass and cases that fail (shape, dtype, values, NaN).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

import minitorch
from minitorch.testing import assert_close

CASES = [
    ([1.0, 2.0], [1.0, 2.0], {}),
    ([1.0, 2.0], [1.0, 2.000001], {}),  # inside float32's default tolerance
    ([1.0, 2.0], [1.0, 2.01], {}),
    ([1.0, 2.0], [1.0, 2.01], {"rtol": 0.0, "atol": 0.1}),
    ([1.0, float("nan")], [1.0, float("nan")], {}),
    ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": True}),
    ([[1.0, 2.0]], [1.0, 2.0], {}),  # shapes differ
    ([1, 2], [1, 2], {}),
    ([1, 2], [1, 3], {}),
]


@pytest.mark.parametrize("actual, expected, options", CASES)
def test_assert_close_agrees_with_torch(actual, expected, options):
    try:
        torch.testing.assert_close(torch.tensor(actual), torch.tensor(expected), **options)
        torch_passes = True
    except AssertionError:
        torch_passes = False
    call = lambda: assert_close(minitorch.tensor(actual), minitorch.tensor(expected), **options)  # noqa: E731
    if torch_passes:
        call()
    else:
        with pytest.raises(AssertionError):
            call()


def test_assert_close_checks_dtype_like_torch():
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(minitorch.tensor([1.0]), minitorch.tensor([1.0], dtype=minitorch.float64))
    assert_close(minitorch.tensor([1.0]), minitorch.tensor([1.0], dtype=minitorch.float64), check_dtype=False)


def test_tensor_function_is_not_shadowed_by_its_module():
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import minitorch, minitorch._tensor\n"
        "assert callable(minitorch.tensor) and minitorch.tensor([1.0]).shape == (1,)\n"
        "try:\n"
        "    from minitorch.tensor import Tensor\n"
        "except DeprecationWarning as warning:\n"
        "    assert '_tensor' in str(warning)\n"
        "else:\n"
        "    raise SystemExit('no DeprecationWarning for the old module path')\n"
        "assert callable(minitorch.tensor)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_old_checker_names_warn_and_forward_to_course():
    import minitorch.testing

    with pytest.warns(DeprecationWarning, match="minitorch.course.check_expand"):
        check = minitorch.testing.check_expand
    assert check is minitorch.course.check_expand
    with pytest.raises(AttributeError):
        minitorch.testing.no_such_name  # noqa: B018
