"""The wheel must contain every package, the CUDA kernels and the widget front end."""

from __future__ import annotations

from pathlib import Path

import pytest

import minitorch
from minitorch.resources import resource_dir

ROOT = Path(__file__).resolve().parent.parent


def test_pyproject_lists_every_package() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    package_root = Path(minitorch.__file__).parent
    found = {
        ".".join(init.parent.relative_to(package_root.parent).parts)
        for init in package_root.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    missing = found - listed
    assert not missing, f"add these packages to [tool.setuptools] packages: {sorted(missing)}"


def test_resource_folders_are_found() -> None:
    assert any(resource_dir("kernels").glob("*.cu"))


def test_save_and_load_need_only_a_plain_install() -> None:
    """``minitorch.save``/``load`` must work after ``pip install minitorch`` with no extras:
    every package they import is a core dependency, not an optional one."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    core = {requirement.split(">")[0].split("=")[0] for requirement in config["project"]["dependencies"]}
    assert "safetensors" in core
    for extra, requirements in config["project"]["optional-dependencies"].items():
        assert not any(r.startswith("safetensors") for r in requirements), extra
