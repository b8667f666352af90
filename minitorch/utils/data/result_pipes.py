"""How batches travel from the DataLoader workers to the main process: one pipe per
worker, read without ever blocking.

Each worker writes its replies, one *message* at a time, into its own pipe, and only the
main process reads it. A message is framed as its length and its bytes::

    | 8 bytes: n (big-endian) | n bytes: the pickled (task_id, reply) |

Why not one shared ``multiprocessing.Queue``, as before: a worker may die at any moment,
even halfway through writing a message (a batch of 64 MiB of NumPy values fills the pipe
many times over). Reading a message from a queue blocks until all of its bytes are
there, and with a dead writer they never come: the main process would wait forever,
``timeout=`` or not. So here:

* the main process reads whatever bytes a pipe holds (the pipe is non-blocking) into that
  worker's buffer, and takes a message out only once the buffer holds all of it;
* the main process closes its copy of each pipe's write end as soon as the worker has
  started, so the worker is the pipe's only writer: when the worker dies, however it
  dies, reading its pipe gives *end of file*, and its half-written message is simply
  left in the buffer (one worker's pipe, so no other worker's messages are mixed up in
  it);
* every wait is bounded (``POLL_INTERVAL``), on both sides: the main process checks its
  workers between waits (``worker_iterator.py``), and a worker whose pipe is full checks
  that its parent is still alive (nobody reads the pipe of a dead parent).
"""

from __future__ import annotations

import os
import pickle
import select
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import wait
from multiprocessing.reduction import ForkingPickler
from typing import Any

# Seconds a worker (and the main process) waits before looking around: is the parent
# still alive, did a worker die, has the timeout passed? Short enough that nothing hangs.
POLL_INTERVAL = 0.25

HEADER_BYTES = 8  # a message's length
READ_BYTES = 1 << 20  # at most this much per read of a pipe


def send(writer: Any, message: Any, parent_alive: Callable[[], bool]) -> bool:
    """In a worker: write ``message`` (pickled by ``ForkingPickler``, so that tensors go
    by their segments' names) into the worker's pipe. While the pipe is full, wait in
    slices of ``POLL_INTERVAL`` and give up (False) when the parent has died or closed
    the pipe."""
    payload = ForkingPickler.dumps(message)
    data = memoryview(len(payload).to_bytes(HEADER_BYTES, "big") + payload)
    fd = writer.fileno()
    os.set_blocking(fd, False)
    room = select.poll()
    room.register(fd, select.POLLOUT)
    while data:
        try:
            data = data[os.write(fd, data) :]
        except BlockingIOError:  # full: the main process has not read the last bytes yet
            room.poll(POLL_INTERVAL * 1000)
            if not parent_alive():
                return False
        except BrokenPipeError:  # the reading end is closed: nobody wants the message
            return False
    return True


class WorkerPipe:
    """The main process's end of one worker's pipe: the bytes read so far, and whether
    the worker has closed it (end of file: it exited or was killed)."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        os.set_blocking(reader.fileno(), False)
        self.buffer = bytearray()
        self.ended = False

    def read_available(self) -> list[bytes]:
        """Read what the pipe holds now (never waiting), and return the messages that are
        complete; a partial one stays in the buffer for the next read."""
        while not self.ended:
            try:
                chunk = os.read(self.reader.fileno(), READ_BYTES)
            except BlockingIOError:
                break
            self.buffer += chunk
            self.ended = not chunk
        messages = []
        while len(self.buffer) >= HEADER_BYTES:
            size = int.from_bytes(self.buffer[:HEADER_BYTES], "big")
            if len(self.buffer) < HEADER_BYTES + size:
                break
            messages.append(bytes(self.buffer[HEADER_BYTES : HEADER_BYTES + size]))
            del self.buffer[: HEADER_BYTES + size]
        return messages


class ResultPipes:
    """The main process's ends of all the workers' pipes. ``receive`` gives the next
    complete message of any worker, each worker's in the order it sent them."""

    def __init__(self) -> None:
        self.pipes: list[WorkerPipe] = []
        self.arrived: deque[Any] = deque()  # complete messages not yet taken

    def add(self, reader: Any) -> None:
        """The pipe of the next worker (worker ``len(self.pipes)``)."""
        self.pipes.append(WorkerPipe(reader))

    def receive(self, timeout: float) -> Any:
        """The next message (unpickled), waiting at most ``timeout`` seconds for one to be
        complete; None if none is."""
        if not self.arrived:
            open_pipes = {pipe.reader: pipe for pipe in self.pipes if not pipe.ended}
            for reader in wait(list(open_pipes), timeout) if open_pipes else ():
                self.arrived.extend(open_pipes[reader].read_available())
        return pickle.loads(self.arrived.popleft()) if self.arrived else None

    def ended(self) -> list[int]:
        """The workers whose pipe has reached end of file."""
        return [worker_id for worker_id, pipe in enumerate(self.pipes) if pipe.ended]

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.reader.close()
        self.arrived.clear()
