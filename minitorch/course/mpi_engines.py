"""MPI ranks inside a notebook, for the distributed-training chapter (11).

A distributed program is one script that ``mpiexec -n 3 python train.py`` starts three
times; each copy learns its *rank* from MPI. In a notebook, `ipyparallel
<https://ipyparallel.readthedocs.io>`_ does the same with *engines*: IPython kernels
started under ``mpiexec``, so they are real MPI ranks, driven from the notebook::

    import ipyparallel as ipp
    cluster = ipp.Cluster(engines="mpi", n=3)            # mpiexec -n 3 ... engines
    rc = cluster.start_and_connect_sync(activate=True)   # turns on the %%px magic

after which a cell that starts with ``%%px`` runs on every engine at once, and its output
comes back labelled ``[stdout:0]``, ``[stdout:1]``... one block per engine. ``start``
does exactly that, and where ipyparallel, ``mpi4py`` or ``mpiexec`` is missing it instead
installs a stand-in ``%%px`` that prints why the cell did not run, so "Run all" still
reaches the end (``pip install 'minitorch[distributed]'`` brings them all).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from typing import Any

INSTALL = "pip install 'minitorch[distributed]'"


def missing() -> str:
    """Why MPI engines cannot start here ("" when they can)."""
    for module in ("ipyparallel", "mpi4py"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed ({INSTALL})"
    if shutil.which("mpiexec") is None:
        return f"there is no mpiexec on PATH ({INSTALL} brings MPICH's)"
    return ""


class Engines:
    """The running engines: ``pull(name)`` gets a variable from every rank, in rank order."""

    def __init__(self, cluster: Any = None, client: Any = None, reason: str = "") -> None:
        self.cluster, self.client, self.reason = cluster, client, reason

    def __bool__(self) -> bool:
        return self.client is not None

    def pull(self, name: str) -> list | None:
        """``[value on rank 0, value on rank 1, ...]`` (``None`` without engines). Engines
        are numbered by ipyparallel and ranks by MPI; the cells store ``rank`` to match them."""
        if not self:
            return None
        view = self.client[:]
        ranks = view.pull("rank", block=True)
        values = view.pull(name, block=True)
        return [value for _, value in sorted(zip(ranks, values), key=lambda pair: pair[0])]

    def stop(self) -> None:
        """Stop the engines (their MPI job ends; nothing is left running)."""
        if self.cluster is not None:
            self.client.close()
            self.cluster.stop_cluster_sync()
            self.cluster = self.client = None
        print("engines stopped" if not self.reason else f"(no engines were started: {self.reason})")


def start(n: int = 3, threads_per_rank: int = 1, timeout: float = 120) -> Engines:
    """Start ``n`` MPI engines and turn on ``%%px``; or, where that cannot work, a
    ``%%px`` that says why. Each rank gets ``threads_per_rank`` Numba threads, so ``n``
    ranks share the machine's cores instead of fighting over them."""
    reason = missing()
    if not reason:
        try:
            import ipyparallel as ipp

            os.environ["NUMBA_NUM_THREADS"] = str(threads_per_rank)  # the engines inherit it
            cluster = ipp.Cluster(engines="mpi", n=n, log_level=logging.ERROR)  # quiet when stopping
            client = cluster.start_and_connect_sync(activate=True)
            client.wait_for_engines(n, timeout=timeout)
            _quiet_progress()
            print(f"{n} MPI engines started: a %%px cell runs on all of them")
            return Engines(cluster, client)
        except Exception as problem:  # noqa: BLE001 (any failure to start means: no engines)
            reason = f"the engines did not start: {type(problem).__name__}: {problem}"
    _stand_in_px(reason)
    print(f"no MPI engines: {reason}. The %%px cells will say they were skipped.")
    return Engines(reason=reason)


def _quiet_progress(after_seconds: float = 30) -> None:
    """``%%px`` draws a progress bar for a cell that takes over 2 s; only after 30 here."""
    from IPython import get_ipython

    shell = get_ipython()
    for magics in shell.magics_manager.registry.values() if shell is not None else ():
        if hasattr(magics, "progress_after_seconds"):
            magics.progress_after_seconds = after_seconds


def _stand_in_px(reason: str) -> None:
    """Register a ``%%px`` cell magic that runs nothing and says why."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return

    def px(line: str, cell: str) -> None:
        print(f"[skipped: this cell runs on MPI engines, and {reason}]")

    shell.register_magic_function(px, magic_kind="cell", magic_name="px")
