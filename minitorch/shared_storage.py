"""Storage in shared memory: where ``Tensor.share_memory_()`` moves a tensor's storage.

A storage is normally private memory of one process (a NumPy array). To hand a tensor to
another process without copying its values, the storage must live in memory that both
processes map: a *segment*, a file in a memory-backed directory (``/dev/shm`` on Linux,
the directory ``multiprocessing.shared_memory`` uses too) that each process maps with
``mmap``. A write by one process lands in the very pages the others read, so only the
segment's name and the tensor's layout travel between processes
(``minitorch/multiprocessing/reductions.py``). A segment holds::

    bytes [0, 8)     how many messages naming it are in flight (int64)
    bytes [8, 16)    1 when its name is registered with the resource tracker (int64)
    bytes [16, 64)   unused, so that the cells start 64-byte aligned
    bytes [64, ...)  the storage's cells

Who removes the name? A name left in ``/dev/shm`` keeps its memory taken until reboot,
and a process may die at any moment (SIGKILL runs no cleanup code). The answer here is
a reference count across processes that the kernel keeps for us:

* every process that maps a segment holds a *shared lock* on its byte 1
  (``fcntl.lockf``), and the kernel drops a process's locks when it exits, however it
  exits;
* a message naming the segment that is pickled but not yet unpickled is counted in the
  header (up in ``handle`` when sent, down in ``attach`` once the receiver holds its own
  lock), so a sender may drop its tensor the moment it has sent it;
* when a process's last storage on a segment dies, or the process exits, it drops its
  lock and, if no message is in flight and no other process holds a lock (an exclusive
  lock can be taken), removes the name. The kernel frees the pages with the last mapping.

Two things no holder is left to clean: a segment whose last holder was killed, and a
message sent but never received (a queue nobody read). ``sweep()`` removes the first kind
among the program's segments (a program may call it after a child was killed), and the
main process, at exit, removes both (``_at_exit``). And when the main process itself is
killed, Python's resource tracker, a small process started for the program
(``multiprocessing.resource_tracker``), removes every name still registered with it once
all of the program's processes are gone, with a warning that they leaked. (Only
processes sharing the main process's tracker register: a forked child of a main process
that had not started it yet would start its own, which would remove the segments it made
when it exits, while the main process may still use them.)

Why not ``multiprocessing.shared_memory.SharedMemory`` itself (the same file and
``mmap`` underneath): its ``close()`` refuses while a NumPy array still points into the
memory, and its resource tracker, in the Python versions minitorch supports, removes a
segment when a process that merely attached it exits, while others still use it.

Shared storages are outside the caching allocator: their memory belongs to the segment,
and is neither counted nor pooled by it.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import secrets
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator
from multiprocessing import resource_tracker, util
from typing import Any

import numpy as np

try:
    import fcntl  # POSIX locks: Linux and macOS
except ImportError:  # Windows: minitorch imports, share_memory_ says it cannot share
    fcntl = None

SEGMENT_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
PREFIX = "minitorch_"  # every segment's name: minitorch_<program>_<creator pid>_<random>
HEADER_BYTES = 64
_MUTEX_BYTE = 0  # locked while the header is read or changed
_HOLDERS_BYTE = 1  # each process that maps the segment holds a shared lock on it

# The program a segment belongs to is the pid of its main process. A main process names
# itself; a child started by multiprocessing inherits the name: a forked child as this
# module's variable, a spawned one (``--multiprocessing-fork`` on its command line)
# through the environment.
if "--multiprocessing-fork" in sys.orig_argv and "MINITORCH_PROGRAM" in os.environ:
    PROGRAM = os.environ["MINITORCH_PROGRAM"]
else:
    PROGRAM = os.environ["MINITORCH_PROGRAM"] = str(os.getpid())

# Whether this process shares the program's resource tracker, and so registers the names
# it makes: the main process starts the tracker on its first segment, before its first
# fork, or when it removes a name a spawned child registered (``_start_tracker``: spawning
# started the tracker already), a spawned child is always handed it, a forked child
# inherits this variable.
_tracked = "--multiprocessing-fork" in sys.orig_argv
_TRACKABLE = SEGMENT_DIR == "/dev/shm"  # the tracker removes names of POSIX shm_open

_lock = threading.RLock()  # locks are per process: this one orders this process's threads
_segments: dict[str, Segment] = {}  # name -> segment mapped here while a storage uses it
_names: dict[int, str] = {}  # id(storage) -> its segment's name, while the storage lives


class Segment:
    """One segment mapped into this process, with this process's shared lock on it."""

    def __init__(self, name: str, fd: int) -> None:
        self.name = name
        self.fd = fd
        self.map = mmap.mmap(fd, os.fstat(fd).st_size)
        self.in_flight = np.frombuffer(self.map, np.int64, 1)  # header bytes [0, 8)
        fcntl.lockf(fd, fcntl.LOCK_SH, 1, _HOLDERS_BYTE)

    @property
    def path(self) -> str:
        return os.path.join(SEGMENT_DIR, self.name)

    def storage(self, numpy_dtype: Any, count: int, storage_class: type) -> np.ndarray:
        """The cells as a flat array of the storage's own class (a NumPy array, or the
        CUDA emulator's device array), released when the array dies."""
        cells = np.frombuffer(self.map, numpy_dtype, count, HEADER_BYTES).view(storage_class)
        self.cells = weakref.ref(cells)  # one storage per segment and process
        _segments[self.name] = self
        _names[id(cells)] = self.name
        weakref.finalize(cells, self.release, id(cells))
        return cells

    @contextlib.contextmanager
    def header(self) -> Iterator[None]:
        """Hold the header's lock (other processes) and ``_lock`` (other threads)."""
        with _lock:
            fcntl.lockf(self.fd, fcntl.LOCK_EX, 1, _MUTEX_BYTE)
            try:
                yield
            finally:
                fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, _MUTEX_BYTE)

    def release(self, storage_id: int | None = None) -> None:
        """This process lets go: drop its lock, and remove the name if it was the last
        holder and no message names the segment."""
        with _lock:
            _names.pop(storage_id, None)
            if _segments.get(self.name) is not self:
                return  # released already (at exit)
            del _segments[self.name]
            fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, _HOLDERS_BYTE)
            with self.header():
                if self.in_flight[0] == 0 and _nobody_holds(self.fd):
                    _remove(self.name, self.fd)
            os.close(self.fd)  # the mapping stays until the array using it is gone


def _register(name: str, fd: int) -> None:
    """Register a new name with the program's resource tracker, and mark it so in the
    header for whichever process removes it."""
    _start_tracker()
    if _tracked:
        resource_tracker.register("/" + name, "shared_memory")  # as shm_open names it
        os.pwrite(fd, (1).to_bytes(8, sys.byteorder, signed=True), 8)


def _start_tracker() -> None:
    """In the main process: start the program's resource tracker, if not yet running."""
    global _tracked
    if _TRACKABLE and PROGRAM == str(os.getpid()) and not _tracked:
        resource_tracker.ensure_running()
        _tracked = True


def _remove(name: str, fd: int) -> None:
    """Remove the name (the pages go with the last mapping), and its registration."""
    try:
        os.unlink(os.path.join(SEGMENT_DIR, name))
    except FileNotFoundError:
        return  # another process was first
    registered = int.from_bytes(os.pread(fd, 8, 8), sys.byteorder, signed=True)
    if registered:
        _start_tracker()  # the main process shares the tracker its spawned children use
    if registered and _tracked:
        resource_tracker.unregister("/" + name, "shared_memory")


def _nobody_holds(fd: int) -> bool:
    """True when no other process holds its shared lock (an exclusive one can be had)."""
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _HOLDERS_BYTE)
    except OSError:
        return False
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, _HOLDERS_BYTE)
    return True


def is_shared(storage: Any) -> bool:
    return id(storage) in _names


def empty(numpy_dtype: Any, count: int, storage_class: type) -> np.ndarray:
    """A new segment with room for ``count`` cells of ``numpy_dtype``, as a storage of
    ``storage_class`` (a NumPy array, or the CUDA emulator's device array). Its cells read
    zero (a new file's pages) until written: whoever asked for it writes the values
    straight into shared memory, as a DataLoader worker collating a batch does."""
    if fcntl is None:
        raise RuntimeError(
            "sharing tensors between processes needs POSIX shared memory and file locks "
            "(Linux, macOS); this platform has no fcntl"
        )
    numpy_dtype = np.dtype(numpy_dtype)
    name = f"{PREFIX}{PROGRAM}_{os.getpid()}_{secrets.token_hex(6)}"
    path = os.path.join(SEGMENT_DIR, name)
    with _lock:  # a sweep in another thread must not find it before it is locked
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, HEADER_BYTES + count * numpy_dtype.itemsize)
            _register(name, fd)
            return Segment(name, fd).storage(numpy_dtype, count, storage_class)
        except BaseException:
            os.close(fd)
            os.unlink(path)
            raise


def share(values: np.ndarray, storage_class: type) -> np.ndarray:
    """A new segment holding a copy of a storage's cells (``values``, flat), as a storage
    of ``storage_class``: what ``share_memory_()`` moves a private storage into."""
    cells = empty(values.dtype, values.size, storage_class)
    cells[...] = values
    return cells


def handle(storage: np.ndarray) -> tuple:
    """What a message carries instead of the cells: the segment's name, the cells' type
    and count. Counts the message as in flight until ``attach`` receives it."""
    segment = _segments[_names[id(storage)]]
    with segment.header():
        segment.in_flight[0] += 1
    return (segment.name, storage.dtype.str, storage.size, type(storage))


def attach(name: str, numpy_dtype: str, count: int, storage_class: type) -> np.ndarray:
    """The storage a message names (mapped once per process), taking over the message's
    place in the count of messages in flight."""
    with _lock:
        segment = _segments.get(name)
        if segment is not None:  # mapped here already: the same storage, so views agree
            storage = segment.cells()
        else:
            try:
                fd = os.open(os.path.join(SEGMENT_DIR, name), os.O_RDWR)
            except FileNotFoundError:
                raise RuntimeError(
                    f"shared memory segment {name!r} no longer exists: it was removed before "
                    "this message was received (was the message received twice?)"
                ) from None
            try:
                segment = Segment(name, fd)  # takes this process's shared lock first
            except BaseException:
                os.close(fd)
                raise
            storage = segment.storage(np.dtype(numpy_dtype), count, storage_class)
        with segment.header():
            segment.in_flight[0] -= 1
        return storage


def discard(name: str) -> None:
    """Take a message's place out of the count without mapping its segment (the receiver
    refused it), removing the name if that was all that kept it."""
    with _lock:
        segment = _segments.get(name)
        if segment is not None:
            with segment.header():
                segment.in_flight[0] -= 1
            return
        _unlink_if_unused(name, in_flight_change=-1)


def _unlink_if_unused(name: str, in_flight_change: int = 0, ignore_in_flight: bool = False) -> None:
    """For a segment this process does not map: change its count of messages in flight,
    then remove it if no message names it (unless ``ignore_in_flight``) and no process
    holds it."""
    path = os.path.join(SEGMENT_DIR, name)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX, 1, _MUTEX_BYTE)
        in_flight = int.from_bytes(os.pread(fd, 8, 0), sys.byteorder, signed=True)
        in_flight += in_flight_change
        os.pwrite(fd, in_flight.to_bytes(8, sys.byteorder, signed=True), 0)
        if (in_flight == 0 or ignore_in_flight) and _nobody_holds(fd):
            _remove(name, fd)
    finally:
        os.close(fd)  # drops this process's locks on it


def sweep(in_flight_too: bool = False) -> None:
    """Remove this program's segments that no process holds and no message in flight
    names, among those this process made and those whose maker is dead: what is left
    when the last process holding a segment was killed. (A segment being made by a live
    process is skipped: it has no lock on it for a moment.) ``in_flight_too``: remove
    them even when a message names them, as the main process does at exit, when no
    process of the program is left to receive it."""
    with _lock:
        for name in os.listdir(SEGMENT_DIR):
            program, creator, *_ = name[len(PREFIX) :].split("_") + ["", ""]
            mine = name.startswith(PREFIX) and program == PROGRAM and creator.isdigit()
            if not mine or name in _segments:
                continue
            if creator == str(os.getpid()) or not _is_running(int(creator)):
                _unlink_if_unused(name, ignore_in_flight=in_flight_too)


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by another user
    return True


def _at_exit() -> None:
    """A process ends: let go of every segment it maps. The main process, whose children
    have all ended by now, also removes what its program left: segments whose holders
    were killed, and those named by messages nobody will receive (a queue never read)."""
    for segment in list(_segments.values()):
        segment.release()
    if PROGRAM == str(os.getpid()):
        sweep(in_flight_too=True)


def _before_fork() -> None:
    """About to fork: start the program's tracker (so that the child shares it), then
    take the tracker's thread lock until the fork is done. A fork copies only the thread
    that forks: a lock another thread holds at that moment (one registering or removing a
    segment's name, say, in a queue's feeder thread) would stay held forever in the
    child, and the child's first ``share_memory_()`` would wait on it for good."""
    _start_tracker()
    resource_tracker._resource_tracker._lock.acquire()


def _after_fork_in_parent() -> None:
    resource_tracker._resource_tracker._lock.release()


def _after_fork_in_child() -> None:
    """A forked child inherits the mappings but not the locks (they are per process):
    take a lock on each segment, and start with unheld thread locks, ours and the
    tracker's (``_before_fork`` held it for the fork)."""
    global _lock
    _lock = threading.RLock()
    resource_tracker._resource_tracker._lock = threading.RLock()
    for segment in _segments.values():
        fcntl.lockf(segment.fd, fcntl.LOCK_SH, 1, _HOLDERS_BYTE)


class _ExitHook:
    """Registers ``_at_exit`` with multiprocessing's exit handlers, which run in the main
    process (at interpreter exit) and in each child it starts, even a forked child (which
    leaves with ``os._exit``, skipping ``atexit``). Priority -10: after the queues' feeder
    threads have sent (and so pinned) what was put on them."""

    def register(self) -> None:
        util.Finalize(None, _at_exit, exitpriority=-10)


_exit_hook = _ExitHook()
_exit_hook.register()
util.register_after_fork(_exit_hook, _ExitHook.register)  # a child starts with none
if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child
    )
