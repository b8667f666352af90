"""Course plumbing shared by every notebook: where the course lives, and the setup cell.

``REPO_URL`` is the one place that names the course repository. The notebook builder
(``notebooks/build.py``) writes it into each notebook's "Open in Colab" badge and first
cell; a test checks that every notebook agrees with it. The first cell installs from
``$MINITORCH_COURSE_SOURCE`` when that is set (``SOURCE_VARIABLE``), else from the
repository: anything pip accepts after ``minitorch @``, so a course hosted elsewhere (a
fork, a JupyterHub with its own copy) needs no notebook edited.

``setup()`` is what the first cell of each notebook calls after minitorch is importable:
it seeds the random generator, picks the CPU backend, picks the device (a real GPU when
there is one, else the CPU, or the CUDA emulator for the GPU chapter) and turns on
widgets in Colab.
"""

from __future__ import annotations

import importlib.util
import sys

import minitorch

REPO_URL = "https://github.com/minitorch-course/minitorch"
BRANCH = "main"

SOURCE_VARIABLE = "MINITORCH_COURSE_SOURCE"  # where the first cell installs from, if set
DEFAULT_SOURCE = f"git+{REPO_URL}"  # ... and if not: what pip reads after "minitorch @"


def colab_url(path: str) -> str:
    """The Colab address that opens ``path`` (relative to the repository root)."""
    repo = REPO_URL.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repo}/blob/{BRANCH}/{path}"


def badge(path: str) -> str:
    """The markdown of the "Open in Colab" badge for the notebook at ``path``."""
    image = "https://colab.research.google.com/assets/colab-badge.svg"
    return f"[![Open In Colab]({image})]({colab_url(path)})"


def setup_cell(setup_arguments: str = "") -> str:
    """The source of every notebook's first code cell. Where minitorch is missing it pip
    installs it with the extras the notebooks use (Colab already has Jupyter, ipywidgets
    and a compiler for the CUDA emulator)."""
    return f'''# Setup: run this cell first. On Colab (or wherever minitorch is not installed yet)
# it installs minitorch from the course repository, or from ${SOURCE_VARIABLE} if set
# (see notebooks/README.md); on your own machine it does nothing.
import os

COURSE_SOURCE = os.environ.get("{SOURCE_VARIABLE}", "{DEFAULT_SOURCE}")
try:
    import minitorch
except ImportError:
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                    f"minitorch[colab] @ {{COURSE_SOURCE}}"], check=True)
    import minitorch

from minitorch import course

device = course.setup({setup_arguments})'''


def in_colab() -> bool:
    return "google.colab" in sys.modules


def _real_gpu() -> bool:
    cuda = getattr(minitorch, "cuda", None)
    if cuda is None:
        return False
    has_gpu = getattr(cuda, "has_gpu", None)  # a real device, not the emulator
    try:
        return bool(has_gpu()) if has_gpu is not None else bool(cuda.is_available())
    except Exception:  # noqa: BLE001 (a broken driver means: no GPU)
        return False


def _use_emulator() -> bool:
    cuda = getattr(minitorch, "cuda", None)
    use_emulator = getattr(cuda, "use_emulator", None)
    if use_emulator is None:
        return False
    try:
        use_emulator()
    except Exception as error:  # noqa: BLE001 (e.g. no C++ compiler)
        print(f"(the CUDA emulator is not usable here: {error})")
        return False
    return True


def _warm_up_for_later_chapters() -> None:
    """Start Numba's warm-up (``minitorch/course/warm_up.py``) in the background:
    a chapter on the reference backend runs no Numba kernel, so the warm-up has the
    compiler to itself while the student works, and the Numba chapters that follow find
    their kernels compiled. (A Numba chapter does not start it: measured on two cores, a
    warm-up beside the chapter's own first calls made them no faster, and sometimes slower.)"""
    if importlib.util.find_spec("numba") is not None:
        from minitorch.course import warm_up

        warm_up.start_in_background()


def setup(backend: str = "numba", gpu: bool = True, emulate_cuda: bool = False,
          seed: int = 0, quiet: bool = False) -> str:  # fmt: skip
    """Prepare a notebook; return the device to use (``"cuda"`` or ``"cpu"``).

    * ``backend`` -- the CPU backend: ``"numba"`` (fast) or ``"reference"`` (plain Python
      loops, the ones the early chapters read). Falls back to ``"reference"`` when Numba
      is not available.
    * ``gpu`` -- use a real GPU when there is one.
    * ``emulate_cuda`` -- without a GPU, run CUDA kernels on the CPU emulator instead
      (the GPU chapter), so the device is still ``"cuda"``.
    """
    minitorch.manual_seed(seed)
    try:
        minitorch.set_backend("cpu", backend)
    except Exception:  # noqa: BLE001 (a backend that has not landed or does not import)
        minitorch.set_backend("cpu", "reference")
    if minitorch.get_backend("cpu") != "numba":
        _warm_up_for_later_chapters()
    if in_colab():
        try:
            from google.colab import output  # type: ignore[import-not-found]

            output.enable_custom_widget_manager()
        except Exception:  # noqa: BLE001
            pass
    device = "cpu"
    where = "no GPU: everything runs on the CPU"
    if gpu and _real_gpu():
        device, where = "cuda", "a CUDA GPU is available"
    elif emulate_cuda and _use_emulator():
        device, where = "cuda", "no GPU: CUDA kernels run on the CPU emulator"
    if not quiet:
        print(f"minitorch {minitorch.__version__} · CPU backend: {minitorch.get_backend('cpu')} "
              f"· {where} · device = {device!r}")  # fmt: skip
    return device
