"""Where the Playground computes: the backend it trains on, and on how many threads.

The backend is chosen live in the widget. ``BACKENDS`` maps each choice to the
``minitorch.dispatch`` backend and the device the tensors live on:

| choice          | kernels                                   | device |
| --------------- | ----------------------------------------- | ------ |
| ``reference``   | plain Python loops (the readable spec)    | cpu    |
| ``numba``       | compiled CPU kernels (the default here)   | cpu    |
| ``cuda``        | the CUDA kernels on a GPU, through CuPy   | cuda   |
| ``cuda_emulator``| the same CUDA kernels, emulated on the CPU| cuda   |

``computing(name)`` is the ``with`` block every piece of the Playground's tensor code
runs in. Besides picking the backend it

* keeps NumPy quiet about overflow: a too-large learning rate overflows on purpose, and
  the trainer reports the NaN loss itself;
* runs Numba on **one thread**. Playground tensors are tiny (a batch is 10 x 2, the
  heatmap grid 10,000 x 8 at most), and a step dispatches about 45 kernels: waking
  worker threads for each costs more than the work itself, and very much more on a busy
  machine, where a thread may wait for a core (``docs/backend-guide.md`` has the times).
  ``numba.set_num_threads`` applies to the calling thread only, and is restored
  afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from minitorch import dispatch

BACKENDS = {
    "reference": ("reference", "cpu"),
    "numba": ("numba", "cpu"),
    "cuda": ("cuda", "cuda"),
    "cuda_emulator": ("cuda", "cuda"),
}


def works(name: str) -> bool:
    """True when backend choice ``name`` can run here. The CUDA choices ask the CUDA
    backend (found through ``dispatch``) to run on the emulator or on a GPU for a moment."""
    try:
        backend = dispatch.load_backend(BACKENDS[name][0])
        if name in ("cuda", "cuda_emulator"):
            with backend.running_on("emulator" if name == "cuda_emulator" else "gpu"):
                pass
        return True
    except Exception:  # a missing CuPy, compiler or GPU: just not offered
        return False


def available_backends() -> list[str]:
    """The choices that work on this machine (CUDA needs a GPU; its emulator, g++)."""
    return [name for name in BACKENDS if works(name)]


def default_backend() -> str:
    """Numba when it works (the reference backend is the slow, readable spec), else the
    backend active for the CPU."""
    return "numba" if works("numba") else dispatch.get_backend("cpu")


def emulated(active: bool) -> contextlib.AbstractContextManager:
    """Inside the block device "cuda" runs on the CUDA emulator (when ``active``).
    Tensors made on the emulator can only be read or copied while it is active."""
    if not active:
        return contextlib.nullcontext()
    return dispatch.load_backend("cuda").running_on("emulator")


@contextlib.contextmanager
def computing(name: str) -> Iterator[None]:
    """Run the block on backend choice ``name`` (see the module docstring)."""
    dispatch_name, device = BACKENDS[name]
    with dispatch.backend(dispatch_name, device), np.errstate(all="ignore"):
        with emulated(name == "cuda_emulator"):
            if name != "numba":
                yield
                return
            import numba

            threads = numba.get_num_threads()
            numba.set_num_threads(1)  # this thread only
            try:
                yield
            finally:
                numba.set_num_threads(threads)
