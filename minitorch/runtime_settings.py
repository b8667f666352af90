"""PyTorch's process-wide switches and their queries: threads, determinism, float32
matmul precision, anomaly detection (``torch.set_num_threads``,
``torch.use_deterministic_algorithms``...).

Code written for PyTorch sets these at the top of a script (``torch.set_num_threads(1)``
in a data-loading worker, ``torch.use_deterministic_algorithms(True)`` for a reproducible
run). minitorch takes them with PyTorch's arguments, answers with PyTorch's values and
refuses bad input with PyTorch's exceptions, and each function says what the switch does
*here*:

* **threads**: the Numba backend's parallel kernels run on Numba's thread pool, so
  ``set_num_threads(n)`` calls ``numba.set_num_threads`` (capped at the pool's size,
  ``NUMBA_NUM_THREADS``; Numba's count belongs to the calling thread). minitorch has no
  inter-op pool: the inter-op count is kept and answered, as PyTorch's is.
* **determinism**: every CPU kernel of minitorch is deterministic already (``scatter_add``
  runs serially); only the CUDA ``scatter_add``'s atomic adds sum in varying order, and
  these flags do not change that. They are kept and answered.
* **float32 matmul precision**: minitorch always multiplies float32 in float32
  (PyTorch's ``"highest"``); other settings are kept, as on a CPU-only PyTorch.
* **anomaly detection**: minitorch's backward engine has no anomaly mode; the flags are
  kept and answered so that code which sets them runs, and nothing more.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

__all__ = [
    "are_deterministic_algorithms_enabled", "get_deterministic_debug_mode",
    "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads",
    "init_num_threads", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_anomaly_enabled",
    "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_num_interop_threads",
    "set_num_threads", "thread_safe_generator", "use_deterministic_algorithms",
]  # fmt: skip

_threads: int | None = None  # set_num_threads' last request (None: the pool's own size)
_interop_threads: int | None = None  # set once, as PyTorch's inter-op pool
_deterministic = False
_deterministic_warn_only = False
_matmul_precision = "highest"
_anomaly_enabled = False
_anomaly_check_nan = True


def _require_bool(function: str, argument: str, value: Any, position: int | None = None) -> None:
    if not isinstance(value, bool):
        where = f" (position {position})" if position else ""
        raise TypeError(f"{function}(): argument '{argument}'{where} must be bool, "
                        f"not {type(value).__name__}")


def _require_positive_int(function: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuntimeError(f"{function} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{function} expects a positive integer")
    return value


# ---- threads -----------------------------------------------------------------------------


def _numba() -> Any:
    """Numba's module if it is installed (``import minitorch`` has usually imported it)."""
    if "numba" in sys.modules:
        return sys.modules["numba"]
    try:
        import numba  # deferred: Numba is optional
    except ImportError:
        return None
    return numba


def get_num_threads() -> int:
    """The number of threads used to parallelise CPU operations: the last
    ``set_num_threads``, else the size of Numba's thread pool (else the CPU count)."""
    if _threads is not None:
        return _threads
    numba = _numba()
    return numba.get_num_threads() if numba is not None else os.cpu_count() or 1


def set_num_threads(num_threads: int) -> None:
    """Use ``num_threads`` threads in the Numba backend's parallel kernels.

    Calls ``numba.set_num_threads(min(num_threads, NUMBA_NUM_THREADS))``: Numba cannot
    grow its pool after it has started, so a larger request is capped there, while
    ``get_num_threads`` answers the number asked for, as PyTorch's does. Numba keeps this
    count per calling thread. The backend still runs small work serially."""
    global _threads
    _threads = _require_positive_int("set_num_threads", num_threads)
    numba = _numba()
    if numba is not None:
        numba.set_num_threads(min(num_threads, numba.config.NUMBA_NUM_THREADS))


def get_num_interop_threads() -> int:
    """The number of threads for inter-op parallelism (running independent ops at
    once): the value set, else the CPU count. minitorch runs one op at a time."""
    return _interop_threads if _interop_threads is not None else os.cpu_count() or 1


def set_num_interop_threads(num_threads: int) -> None:
    """Record the inter-op thread count. Once only, as in PyTorch, whose inter-op pool is
    made once: a second call raises RuntimeError."""
    global _interop_threads
    _require_positive_int("set_num_interop_threads", num_threads)
    if _interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started "
                           "or set_num_interop_threads called")  # fmt: skip
    _interop_threads = num_threads


def init_num_threads() -> None:
    """PyTorch calls this in each new thread to apply its thread settings there; Numba
    needs nothing of the kind, so it does nothing."""


# ---- determinism ---------------------------------------------------------------------------


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (``mode=True``); with ``warn_only`` a
    nondeterministic op would warn instead of raising. Recorded: minitorch's CPU kernels
    are deterministic, and the CUDA ``scatter_add`` (atomic adds) is not made so."""
    global _deterministic, _deterministic_warn_only
    _require_bool("_set_deterministic_algorithms", "mode", mode, 1)
    _require_bool("_set_deterministic_algorithms", "warn_only", warn_only)
    _deterministic, _deterministic_warn_only = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The ``warn_only`` of the last ``use_deterministic_algorithms`` call."""
    return _deterministic_warn_only


DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def get_deterministic_debug_mode() -> int:
    """The determinism flags as one number: 0 off, 1 warn, 2 error."""
    if not _deterministic:
        return 0
    return 1 if _deterministic_warn_only else 2


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """``"default"``/0 (off), ``"warn"``/1 or ``"error"``/2: another spelling of
    ``use_deterministic_algorithms``."""
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")  # fmt: skip
        debug_mode = DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


# ---- float32 matmul precision ---------------------------------------------------------------

MATMUL_PRECISIONS = ("highest", "high", "medium")


def get_float32_matmul_precision() -> str:
    """``"highest"``, ``"high"`` or ``"medium"``: the last value set."""
    return _matmul_precision


def set_float32_matmul_precision(precision: str) -> None:
    """How float32 matrix products may be computed inside: ``"highest"`` in float32,
    ``"high"`` and ``"medium"`` allowing TensorFloat32 or bfloat16 on GPUs that have them.
    minitorch computes in float32 always; the setting is kept. An unknown name warns and
    changes nothing, as PyTorch does; a non-string is a RuntimeError."""
    global _matmul_precision
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in MATMUL_PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)  # fmt: skip
        return
    _matmul_precision = precision


# ---- anomaly detection -----------------------------------------------------------------------


def is_anomaly_enabled() -> bool:
    """Whether ``set_anomaly_enabled(True)`` was called (minitorch has no anomaly mode)."""
    return _anomaly_enabled


def is_anomaly_check_nan_enabled() -> bool:
    """The ``check_nan`` of the last ``set_anomaly_enabled`` (True by default)."""
    return _anomaly_check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Record PyTorch's anomaly-detection flags. In PyTorch this makes backward check for
    NaN and name the forward op behind an error; minitorch's engine does neither."""
    global _anomaly_enabled, _anomaly_check_nan
    _require_bool("set_anomaly_enabled", "enabled", enabled, 1)
    _require_bool("set_anomaly_enabled", "check_nan", check_nan, 2)
    _anomaly_enabled, _anomaly_check_nan = enabled, check_nan


# ---- random numbers in worker threads ----------------------------------------------------------


def thread_safe_generator() -> None:
    """In a DataLoader *thread* worker, PyTorch returns that worker's own generator;
    elsewhere ``None`` (use the global one). minitorch's workers are processes, each
    seeded apart, so the answer is always ``None``."""
    return None
