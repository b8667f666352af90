"""The layers of docs/architecture.md, enforced on every import in ``minitorch/``.

The layers table in ``docs/architecture.md`` is the one home of the layer order: this test
parses it, then parses every module under ``minitorch/`` with ``ast`` (imports at the top
of a file and inside functions alike) and checks three rules:

1. a module imports only from its own layer or the layers below it (the package root
   ``minitorch/__init__.py`` gathers the public API from every layer and is exempt);
2. a layer whose "imported by" cell says "only ..." is imported by those files only
   (kernels: dispatch is the one module that knows backends exist);
3. kernels are launched (``dispatch.map(...)`` and the other primitives, and the
   Tensor's private constructors ``_empty``/``_full``/``_view``) from the tensor,
   autograd and ops layers only.

A failure names the file, the line and the rule broken.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "minitorch"
ARCHITECTURE = REPO / "docs" / "architecture.md"

PRIMITIVES = {
    "map", "zip", "where", "reduce", "arg_reduce", "matmul", "gather", "scatter_add", "scan",
    "sort", "lu_factor", "lu_solve", "svd", "optimizer_step",
}  # fmt: skip
PRIVATE_CONSTRUCTORS = {"_empty", "_full", "_view"}
LAUNCHING_LAYERS = {"tensor", "autograd", "ops"}

# Deliberate exceptions, each with its reason.
EXEMPT: dict[tuple[str, str], str] = {
    ("minitorch/widgets/strides.py", "Tensor._view"): (
        "the stride visualizer draws any layout a dispatch record shows, including the "
        "negative strides of flip's kernel, which as_strided rightly refuses"
    ),
}

# Violations other work in progress is removing. Each entry must still be violated: when
# a fix lands the test fails until its entry is deleted here, so this set only shrinks.
# Entries are (file, what it reaches for), as the violation messages print them.
KNOWN_VIOLATIONS: set[tuple[str, str]] = set()  # none left


@dataclass(frozen=True)
class Layer:
    rank: int
    name: str
    paths: tuple[str, ...]  # files, or folders ending in "/"
    only_imported_by: tuple[str, ...]  # empty: any layer above may import it


@dataclass(frozen=True)
class Violation:
    file: str
    line: int
    target: str  # the module imported, or the call made
    rule: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.target}: {self.rule}"


def read_layers(repo: Path = REPO) -> list[Layer]:
    """The rows of the table under "## Layers" in docs/architecture.md."""
    text = (repo / "docs" / "architecture.md").read_text().split("## Layers", 1)[1]
    layers = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"(\d+) (.+)", cells[0]) if len(cells) == 4 else None
        if match:
            only = re.findall(r"`([^`]+)`", cells[2]) if cells[2].startswith("only") else []
            layers.append(Layer(int(match[1]), match[2], tuple(re.findall(r"`([^`]+)`", cells[1])),
                                tuple(only)))  # fmt: skip
        elif layers and not line.startswith("|"):
            break
    return layers


def under(file: str, path: str) -> bool:
    """Is ``file`` the file ``path``, or inside the folder ``path`` (ending in "/")?"""
    return file == path or (path.endswith("/") and file.startswith(path))


def layer_of(file: str, layers: list[Layer]) -> Layer:
    """The layer whose path is the longest prefix of ``file`` (``minitorch/ops/binary.py``)."""
    matches = [(len(path), layer) for layer in layers for path in layer.paths if under(file, path)]
    if not matches:
        raise AssertionError(f"{file} is in no layer: add it to the layers table of docs/architecture.md")
    return max(matches, key=lambda match: match[0])[1]


def module_file(module: str, repo: Path = REPO) -> str | None:
    """``minitorch.ops.binary`` -> ``minitorch/ops/binary.py`` (None if no such module)."""
    path = repo / module.replace(".", "/")
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate.relative_to(repo).as_posix()
    return None


def package_of(file: str) -> str:
    """The package a file's relative imports start from."""
    parts = file.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] != "__init__" else parts[:-1])


def imported_modules(node: ast.Import | ast.ImportFrom, file: str, repo: Path) -> list[str]:
    """The modules an import statement loads names from. ``from minitorch import nn``
    imports the module ``minitorch.nn``; ``from minitorch import tensor`` takes a name
    from the package root ``minitorch``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = package_of(file).split(".")
        base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
    submodules = (f"{base}.{alias.name}" for alias in node.names)
    return [module if module_file(module, repo) else base for module in submodules]


def import_violation(file: str, layer: Layer, target: Layer) -> str | None:
    """The rule an import from ``file`` (in ``layer``) into ``target`` breaks, if any."""
    if target.rank > layer.rank:
        return (f"upward import: layer {layer.rank} ({layer.name}) may not import "
                f"layer {target.rank} ({target.name})")  # fmt: skip
    if target.only_imported_by and target is not layer:
        if not any(under(file, allowed) for allowed in target.only_imported_by):
            allowed = ", ".join(target.only_imported_by)
            return f"layer {target.rank} ({target.name}) is imported only by {allowed}"
    return None


def launch_violation(node: ast.Attribute) -> str | None:
    """The rule a ``dispatch.<primitive>`` or ``._view``-like attribute breaks outside the
    tensor, autograd and ops layers."""
    if isinstance(node.value, ast.Name) and node.value.id == "dispatch" and node.attr in PRIMITIVES:
        return f"dispatch.{node.attr}"
    if node.attr in PRIVATE_CONSTRUCTORS:
        return f"Tensor.{node.attr}"
    return None


def find_violations(repo: Path = REPO) -> list[Violation]:
    """Every import or kernel launch in ``repo/minitorch`` that breaks a rule."""
    layers = read_layers(repo)
    violations = []
    for path in sorted((repo / "minitorch").rglob("*.py")):
        file = path.relative_to(repo).as_posix()
        if file == "minitorch/__init__.py":
            continue  # the public API gathers every layer
        layer = layer_of(file, layers)
        for node in ast.walk(ast.parse(path.read_text(), file)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for module in imported_modules(node, file, repo):
                    if module.split(".")[0] == "minitorch":
                        target = layer_of(module_file(module, repo), layers)
                        rule = import_violation(file, layer, target)
                        if rule:
                            violations.append(Violation(file, node.lineno, module, rule))
            elif isinstance(node, ast.Attribute) and layer.name not in LAUNCHING_LAYERS:
                launched = launch_violation(node)
                if launched:
                    rule = "kernels are launched by the tensor, autograd and ops layers only: use public ops"
                    violations.append(Violation(file, node.lineno, launched, rule))
    return violations


def test_layers_table_is_ordered_and_complete() -> None:
    layers = read_layers()
    assert [layer.rank for layer in layers] == list(range(1, len(layers) + 1)), "ranks must be 1, 2, 3..."
    for path in sorted(PACKAGE.rglob("*.py")):
        layer_of(path.relative_to(REPO).as_posix(), layers)  # raises for a file in no layer
    for layer in layers:
        for path in layer.paths + layer.only_imported_by:
            assert (REPO / path).exists(), f"the layers table names {path}, which does not exist"


def test_no_import_breaks_the_layers() -> None:
    new = [v for v in find_violations() if (v.file, v.target) not in KNOWN_VIOLATIONS | EXEMPT.keys()]
    assert not new, "imports that break the layers of docs/architecture.md:\n" + "\n".join(map(str, new))


def test_known_violations_are_still_there() -> None:
    fixed = KNOWN_VIOLATIONS - {(v.file, v.target) for v in find_violations()}
    assert not fixed, f"fixed, so delete them from KNOWN_VIOLATIONS in tests/test_layers.py: {sorted(fixed)}"


def test_the_checker_catches_each_rule(tmp_path: Path) -> None:
    """Each rule fires on a planted example, in a copy of the package's file tree."""
    for path in PACKAGE.rglob("*.py"):
        copy = tmp_path / path.relative_to(REPO)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text(ARCHITECTURE.read_text())
    planted = {
        "minitorch/backends/planted_up.py": "from minitorch.ops import binary\n",
        "minitorch/autograd/planted_deferred.py": (
            "def f():\n    from . import grad_mode\n    import minitorch.nn\n"
        ),
        "minitorch/widgets/planted_kernels.py": "from minitorch.backends import reference\n",
        "minitorch/nn/planted_launch.py": (
            "from minitorch import dispatch\ndispatch.zip(a, b, c, d)\nx._view(a, b, c)\n"
        ),
    }
    for file, code in planted.items():
        (tmp_path / file).write_text(code)
    found = {(v.file, v.line, v.target) for v in find_violations(tmp_path)}
    assert found == {
        ("minitorch/backends/planted_up.py", 1, "minitorch.ops.binary"),
        ("minitorch/autograd/planted_deferred.py", 3, "minitorch.nn"),
        ("minitorch/widgets/planted_kernels.py", 1, "minitorch.backends.reference"),
        ("minitorch/nn/planted_launch.py", 2, "dispatch.zip"),
        ("minitorch/nn/planted_launch.py", 3, "Tensor._view"),
    }


def test_to_cuda_without_cuda_still_names_both_ways_forward() -> None:
    """ops/convert.py no longer asks minitorch.cuda (an upward import) whether CUDA works:
    the backend, reached through dispatch, raises the same error before anything runs."""
    code = (
        "import minitorch\n"
        "if minitorch.cuda.is_available(): print('a GPU is here'); raise SystemExit\n"
        "x = minitorch.ones(2, requires_grad=True)\n"
        "try:\n    x.to('cuda')\nexcept RuntimeError as error:\n    print('RuntimeError:', error)\n"
        "print('grad mode on:', minitorch.is_grad_enabled())\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "MINITORCH_CUDA"}
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                            cwd=REPO, timeout=300).stdout  # fmt: skip
    if "a GPU is here" in output:
        pytest.skip("CUDA works here")
    assert "RuntimeError: CUDA is not available" in output and "use_emulator()" in output
    assert "grad mode on: True" in output
