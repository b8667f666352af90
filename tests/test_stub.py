"""The Tensor methods are visible: to type checkers and editors through the generated
stub ``minitorch/_tensor.pyi``, and to ``help(minitorch.Tensor)``."""

from __future__ import annotations

import ast
import pydoc
import sys
from pathlib import Path

import pytest

import minitorch
from minitorch import _tensor
from minitorch.ops import METHODS
from minitorch.ops.stubgen import STUB, render

REPO = Path(__file__).resolve().parent.parent


def stub_members(class_name: str) -> set[str]:
    tree = ast.parse(STUB.read_text())
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name)
    return {node.name for node in cls.body if isinstance(node, ast.FunctionDef)} | {
        node.target.id for node in cls.body if isinstance(node, ast.AnnAssign)
    }


def test_stub_is_current() -> None:
    assert STUB.read_text() == render(), (
        "minitorch/_tensor.pyi is stale (a method was added, renamed or re-documented): "
        "regenerate it with `python -m minitorch.ops.stubgen` and commit it"
    )


def test_stub_declares_every_method_and_everything_public() -> None:
    members = stub_members("Tensor")
    assert set(METHODS) <= members
    own = {name for name, value in vars(_tensor.Tensor).items()
           if callable(value) or isinstance(value, property)}  # fmt: skip
    # __getattr__ is reached only on a miss (unsupported_names.py: a PyTorch name minitorch
    # lacks says so); declared in the stub, it would make every attribute type-check.
    assert own - {"__init_subclass__", "__subclasshook__", "__getattr__"} <= members | {"__slots__"}
    assert {"shape", "dtype", "device", "grad", "requires_grad", "T", "mT", "backward"} <= members
    tree = ast.parse(STUB.read_text())
    top_level = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    public = {name for name in vars(_tensor) if not name.startswith("_") and
              getattr(getattr(_tensor, name), "__module__", None) == _tensor.__name__}  # fmt: skip
    bases = {base.__name__ for base in _tensor.Tensor.__mro__[1:-1]}  # TensorValues: item, numpy...
    assert top_level == public | bases and {"Size", "Tensor", "is_tensor"} <= public
    for base in _tensor.Tensor.__mro__[1:-1]:
        inherited = {name for name, value in vars(base).items() if callable(value)}
        assert inherited - {"__init_subclass__", "__subclasshook__"} <= stub_members(base.__name__)
        assert f"class Tensor({base.__name__})" in STUB.read_text()


def test_stub_signatures_come_from_the_functions() -> None:
    text = STUB.read_text()
    # a builtin that Tensor shadows with a method (bool, float...) is spelled builtins.bool
    assert "    def sum(self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: Any = None)" in text
    assert '        """Sum over ``dim`` (an int, a tuple, or None for all)."""' in text
    assert "    def permute(self, *dims: Any) -> Tensor:" in text
    assert "    def float(self, *, memory_format: Any = ...) -> Tensor:" in text


@pytest.mark.parametrize(
    "expected",
    [
        "sum(x: 'Tensor', dim: 'Any' = None, keepdim: 'bool' = False",
        "Sum over ``dim`` (an int, a tuple, or None for all).",
        "permute(x: 'Tensor', *dims: 'Any') -> 'Tensor'",
        "exp(x: 'Tensor') -> 'Tensor'",
        "backward(t: 'Tensor', gradient: 'Tensor | None' = None",
    ],
)
def test_help_lists_attached_methods(expected: str) -> None:
    assert expected in pydoc.render_doc(minitorch.Tensor, renderer=pydoc.plaintext)


def test_stub_ships_in_the_wheel() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert {"py.typed", "*.pyi"} <= set(config["tool"]["setuptools"]["package-data"]["minitorch"])
    assert (REPO / "minitorch" / "py.typed").is_file()
    assert sys.modules["minitorch._tensor"].__file__.endswith(".py")  # the stub is for tools only
