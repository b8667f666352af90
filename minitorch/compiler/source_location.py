"""Where the student wrote something, said the way the student would look for it.

An error message that points at a line must name the place as the student knows it: a
script is ``train.py, line 12``. A notebook cell has a file name too, but one nobody has
seen: IPython compiles each cell under a temporary name (``/tmp/ipykernel_81/1921458447.py``).
IPython's own tracebacks translate it back through the shell's compiler, which remembers,
for every cell file name it made, the execution count of that cell::

    get_ipython().compile.format_code_name("/tmp/ipykernel_81/1921458447.py")
        == ("Cell", "In[3]")

so a message says ``In [3], line 3``, the prompt the student sees beside the cell. Outside
IPython (a script, pytest) nothing is imported and the file's own name is used.
"""

from __future__ import annotations

import os
import sys
from types import FrameType

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def describe_location(filename: str, lineno: int) -> str:
    """``In [3], line 3`` for a line of a notebook cell, else ``file.py, line 3``."""
    cell = _cell_number(filename)
    if cell is not None:
        return f"In [{cell}], line {lineno}"
    return f"{os.path.basename(filename)}, line {lineno}"


def user_line(frame: FrameType | None = None) -> str:
    """The place of the innermost caller outside minitorch (where the student wrote the
    call that failed), by ``describe_location``; ``frame`` is where to start looking
    (the caller by default)."""
    frame = frame if frame is not None else sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE):
            return describe_location(filename, frame.f_lineno)
        frame = frame.f_back
    return "unknown line"


def _cell_number(filename: str) -> str | None:
    """The execution count of the IPython cell compiled under ``filename``, or ``None``
    (no IPython running, or a file that is no cell)."""
    ipython = sys.modules.get("IPython")  # only if the student's process already has it
    shell = ipython.get_ipython() if ipython is not None else None
    compiler = getattr(shell, "compile", None)
    format_code_name = getattr(compiler, "format_code_name", None)
    if format_code_name is None:
        return None
    label = format_code_name(filename)  # ("Cell", "In[3]"), or None for a real file
    if not label or not label[1].startswith("In[") or not label[1].endswith("]"):
        return None
    return label[1][3:-1]
