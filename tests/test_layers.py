"""The layers of docs/architecture.md, enforced on every import in ``minitorch/``.

The layers table in ``docs/architecture.md`` is the one home of the layer order: this test
parses it, then parses every module under ``minitorch/`` with ``ast`` (imports at the top
of a file and inside functions alike) and checks three rules:

1. a module imports only from its own layer or the layers below it (the package root
   ``minitorch/__init__.py`` gathers the public API from every layer and is exempt);
2. a layer whose "imported by" cell says "only ..." is imported by those files only
   (kernels: dispatch is the one module that knows backends exist);
3. kernels are launched (``dispatch.map(...)`` and the other primitives) from the tensor,
   autograd and ops layers only;
4. the Tensor's private constructors (``_make``, ``_init``, ``_empty``...: the list is the
   one docs/architecture.md gives) are called from the tensor, autograd and ops layers only;
5. no module under ``minitorch/ops/`` or ``minitorch/nn/`` asks grad mode or dispatch
   recording (``is_grad_enabled``, grad mode's thread state, ``dispatch.recording``) to
   choose a faster path: whether a call records is ``Function.apply``'s question alone. A
   few questions of meaning (errors PyTorch raises only in grad mode) are listed, each
   with its reason;
6. no file under ``minitorch/`` is longer than 400 lines, files a generator writes
   (their header says "do not edit by hand") excepted.

A failure names the file, the line and the rule broken.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "minitorch"
ARCHITECTURE = REPO / "docs" / "architecture.md"

PRIMITIVES = {
    "map", "zip", "where", "reduce", "arg_reduce", "matmul", "gather", "scatter_add", "scan",
    "softmax", "log_softmax_backward", "sort", "lu_factor", "lu_solve", "svd", "optimizer_step",
}  # fmt: skip
LAUNCHING_LAYERS = {"tensor", "autograd", "ops"}

# Deliberate exceptions, each with its reason.
EXEMPT: dict[tuple[str, str], str] = {
    ("minitorch/widgets/strides.py", "Tensor._view"): (
        "the stride visualizer draws any layout a dispatch record shows, including the "
        "negative strides of flip's kernel, which as_strided rightly refuses"
    ),
    ("minitorch/dispatch/__init__.py", "Tensor._view"): (
        "a product of two matrices runs as the kernel's batch of one; while a trace or capture "
        "records, dispatch.matmul shows it the kernel's own 3-D operands as checked views"
    ),
}

# Rule 5: grad mode and recording are asked in ops/ and nn/ only where the answer changes
# what a call means, not how fast it runs. (file, function) -> why.
GRAD_MODE_QUESTIONS_OF_MEANING: dict[tuple[str, str], str] = {
    ("minitorch/ops/inplace.py", "check_inplace"): (
        "PyTorch refuses an in-place write to a leaf that requires grad only in grad mode "
        "(under no_grad it is how parameters are initialised and updated)"
    ),
    ("minitorch/ops/inplace.py", "view_inplace_variant.method"): (
        "the same leaf error, for the in-place views (unsqueeze_, t_...)"
    ),
    ("minitorch/ops/inplace.py", "records_history"): (
        "an in-place write records a graph only in grad mode, when the tensor or the value "
        "needs a gradient; otherwise it is only a write (zero_grad, an optimizer's update)"
    ),
    ("minitorch/ops/inplace.py", "apply_inplace"): (
        "an in-place op rewrites the tensor's history (clones what the graph saved, rebases "
        "a view's base) only when it records one; under no_grad the history stays as it was"
    ),
    ("minitorch/ops/out.py", "_refuse_autograd"): (
        "out= is refused where a graph would be recorded, as PyTorch's 'functions with out=... "
        "arguments don't support automatic differentiation'"
    ),
    ("minitorch/ops/optimizer_step.py", "_launch"): (
        "an optimizer step outside no_grad must obey autograd's in-place rules (the leaf error)"
    ),
    ("minitorch/ops/scan.py", "Cumprod.backward"): (
        "PyTorch's cumprod_backward: where x has zeros, the formula by division is not "
        "differentiable again, so under create_graph the one by products runs"
    ),
    ("minitorch/nn/functional/loss.py", "_refuse_weights_needing_grad"): (
        "PyTorch's error for a loss weight that requires grad is raised only when a graph would be recorded"
    ),
    ("minitorch/nn/parallel/distributed.py", "DistributedDataParallel.forward"): (
        "DDP readies its gradient all-reduce only for a forward that records a graph "
        "(under no_grad there will be no backward to synchronise)"
    ),
}

# Rule 6: files issue 30's splits have not reached yet. Each must still be too long: when
# a split lands the test fails until its entry is deleted here, so this set only shrinks.
STILL_TOO_LONG: set[str] = set()  # none left

MAX_LINES = 400

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
    """The rule a ``dispatch.<primitive>`` attribute breaks outside the tensor, autograd and
    ops layers."""
    if isinstance(node.value, ast.Name) and node.value.id == "dispatch" and node.attr in PRIMITIVES:
        return f"dispatch.{node.attr}"
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


def private_constructors(repo: Path = REPO) -> set[str]:
    """The Tensor's private constructors, as the bullet "Kernels are launched from layers
    7-9 only" of docs/architecture.md lists them (``_make``, ``_view``...)."""
    text = (repo / "docs" / "architecture.md").read_text()
    listed = re.search(r"private\s+constructors\s*\(([^)]*)\)", text)
    assert listed, "docs/architecture.md no longer lists the Tensor's private constructors"
    return set(re.findall(r"`(_\w+)`", listed[1]))


def outside_the_tensor_layers(repo: Path) -> Iterator[tuple[str, ast.Module]]:
    """Each module of ``repo/minitorch`` above the tensor, autograd and ops layers (the
    package root included: it only gathers names), parsed."""
    layers = read_layers(repo)
    for path in sorted((repo / "minitorch").rglob("*.py")):
        file = path.relative_to(repo).as_posix()
        if file == "minitorch/__init__.py" or layer_of(file, layers).name not in LAUNCHING_LAYERS:
            yield file, ast.parse(path.read_text(), file)


def find_private_constructor_calls(repo: Path = REPO) -> list[Violation]:
    """Every use of ``Tensor._make`` and its siblings outside the tensor, autograd and ops
    layers. (An attribute of that name on anything: a layer above has no business with
    another ``_make`` either, which keeps the check simple and the names distinct.)"""
    names = private_constructors(repo)
    rule = ("the Tensor's private constructors are called by the tensor, autograd and ops "
            "layers only: use a public op or the tensor layer's function")  # fmt: skip
    return [Violation(file, node.lineno, f"Tensor.{node.attr}", rule)
            for file, tree in outside_the_tensor_layers(repo)
            for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in names]  # fmt: skip


GRAD_MODE_NAMES = {"is_grad_enabled", "records_nothing", "nothing_records"}


def named_functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Every node of ``tree`` with the qualified name of the function it is in
    (``Class.method``, ``outer.inner``; "" at module level)."""

    def walk(node: ast.AST, name: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            yield name, child
            inner = name
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{name}.{child.name}" if name else child.name
            yield from walk(child, inner)

    return walk(tree, "")


def grad_mode_question(node: ast.AST) -> str | None:
    """What ``node`` asks, if it asks grad mode or recording: ``is_grad_enabled`` (a name
    or an attribute), ``records_nothing``/``nothing_records``, ``dispatch.recording`` (also read as
    ``tracing.recording``), or
    grad mode's per-thread state (``thread_state``, imported or reached from grad_mode)."""
    if isinstance(node, ast.Name) and node.id in GRAD_MODE_NAMES:
        return node.id
    if isinstance(node, ast.Attribute):
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        if node.attr in GRAD_MODE_NAMES:
            return node.attr
        if owner in ("dispatch", "tracing", "dispatch_tracing") and node.attr == "recording":
            return "dispatch.recording"  # (the flag lives in minitorch/dispatch/tracing.py)
        if owner == "grad_mode" and node.attr == "thread_state":
            return "grad_mode.thread_state"
    if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("grad_mode"):
        if any(alias.name == "thread_state" for alias in node.names):
            return "grad_mode.thread_state"
    return None


@dataclass(frozen=True)
class Branch(Violation):
    function: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.target} in {self.function or '(module)'}: {self.rule}"


def find_grad_mode_questions(repo: Path = REPO) -> list[Branch]:
    """Every place a module of ``minitorch/ops/`` or ``minitorch/nn/`` asks grad mode or
    recording, with the function it asks in."""
    rule = ("ops and layers do not branch on grad mode or recording: Function.apply alone "
            "decides whether a call records (a question of meaning is listed in "
            "GRAD_MODE_QUESTIONS_OF_MEANING with its reason)")  # fmt: skip
    found = []
    for folder in ("ops", "nn"):
        for path in sorted((repo / "minitorch" / folder).rglob("*.py")):
            file = path.relative_to(repo).as_posix()
            for function, node in named_functions(ast.parse(path.read_text(), file)):
                asked = grad_mode_question(node)
                if asked:
                    found.append(Branch(file, node.lineno, asked, rule, function))
    return found


def generated(text: str) -> bool:
    """Does the file say, in its first lines, that a program writes it (``_tensor.pyi``,
    ``unsupported_names.py``)? Such a file is as long as what it lists."""
    return "do not edit by hand" in " ".join(text[:1000].lower().split())


def find_long_files(repo: Path = REPO) -> list[Violation]:
    """Every text file under ``repo/minitorch`` longer than MAX_LINES, generated ones aside."""
    long = []
    for path in sorted((repo / "minitorch").rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # not text (a compiled kernel's cache)
        lines = len(text.splitlines())
        if lines > MAX_LINES and not generated(text):
            file = path.relative_to(repo).as_posix()
            rule = (f"{lines} lines: a file holds one concept, readable in one sitting "
                    f"(at most {MAX_LINES} lines): split it")  # fmt: skip
            long.append(Violation(file, MAX_LINES + 1, "file length", rule))
    return long


def test_layers_table_is_ordered_and_complete() -> None:
    layers = read_layers()
    assert [layer.rank for layer in layers] == list(range(1, len(layers) + 1)), "ranks must be 1, 2, 3..."
    for path in sorted(PACKAGE.rglob("*.py")):
        layer_of(path.relative_to(REPO).as_posix(), layers)  # raises for a file in no layer
    for layer in layers:
        for path in layer.paths + layer.only_imported_by:
            assert (REPO / path).exists(), f"the layers table names {path}, which does not exist"


def test_no_import_breaks_the_layers() -> None:
    new = [v for v in find_violations() if (v.file, v.target) not in KNOWN_VIOLATIONS]
    assert not new, "imports that break the layers of docs/architecture.md:\n" + "\n".join(map(str, new))


def test_private_constructors_stay_in_the_tensor_layers() -> None:
    calls = find_private_constructor_calls()
    new = [v for v in calls if (v.file, v.target) not in EXEMPT]
    assert not new, "private Tensor constructors called above the ops layer:\n" + "\n".join(map(str, new))
    stale = EXEMPT.keys() - {(v.file, v.target) for v in calls}
    assert not stale, f"no longer needed, so delete them from EXEMPT in tests/test_layers.py: {sorted(stale)}"


def test_known_violations_are_still_there() -> None:
    fixed = KNOWN_VIOLATIONS - {(v.file, v.target) for v in find_violations()}
    assert not fixed, f"fixed, so delete them from KNOWN_VIOLATIONS in tests/test_layers.py: {sorted(fixed)}"


def test_ops_and_layers_do_not_branch_on_grad_mode() -> None:
    questions = find_grad_mode_questions()
    allowed = GRAD_MODE_QUESTIONS_OF_MEANING.keys()
    new = [q for q in questions if (q.file, q.function) not in allowed]
    assert not new, "grad mode or recording asked for speed:\n" + "\n".join(map(str, new))
    gone = allowed - {(q.file, q.function) for q in questions}
    assert not gone, (
        "these no longer ask grad mode, so delete them from GRAD_MODE_QUESTIONS_OF_MEANING "
        f"in tests/test_layers.py: {sorted(gone)}"
    )


def test_no_file_is_longer_than_400_lines() -> None:
    long = find_long_files()
    new = [v for v in long if v.file not in STILL_TOO_LONG]
    assert not new, "files too long to read in one sitting:\n" + "\n".join(map(str, new))
    short = STILL_TOO_LONG - {v.file for v in long}
    assert not short, (
        f"short enough now, so delete them from STILL_TOO_LONG in tests/test_layers.py: {sorted(short)}"
    )


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
        "minitorch/ops/planted_speed.py": (
            "class Op:\n    def backward(ctx, g):\n        if not is_grad_enabled():\n            return g\n"
        ),
        "minitorch/widgets/planted_long.py": "x = 1\n" * (MAX_LINES + 1),
        "minitorch/widgets/planted_generated.py": '"""Do not edit by hand."""\n' + "x = 1\n" * MAX_LINES,
    }
    for file, code in planted.items():
        (tmp_path / file).write_text(code)
    found = {(v.file, v.line, v.target) for v in find_violations(tmp_path)}
    assert found == {
        ("minitorch/backends/planted_up.py", 1, "minitorch.ops.binary"),
        ("minitorch/autograd/planted_deferred.py", 3, "minitorch.nn"),
        ("minitorch/widgets/planted_kernels.py", 1, "minitorch.backends.reference"),
        ("minitorch/nn/planted_launch.py", 2, "dispatch.zip"),
    }
    assert {(v.file, v.line, v.target) for v in find_private_constructor_calls(tmp_path)} == {
        ("minitorch/nn/planted_launch.py", 3, "Tensor._view"),
    }
    assert {(v.file, v.line, v.function) for v in find_grad_mode_questions(tmp_path)} == {
        ("minitorch/ops/planted_speed.py", 3, "Op.backward"),
    }
    assert [v.file for v in find_long_files(tmp_path)] == ["minitorch/widgets/planted_long.py"]


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
