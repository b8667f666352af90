"""What the caller wrote: the source text of the arguments of the call being made.

A widget titles what it draws with the expressions a student typed, not ``v1``, ``v2``::

    strides(t, t.t(), t[1:])          # the views are titled "t", "t.t()" and "t[1:]"

Python keeps no names for values, so we read them back from the caller's source line:

1. the caller's frame knows which instruction is running: the call. Since Python 3.11
   each instruction carries its *position* in the source (line and column, start and
   end), so the call's exact text can be cut out of the source lines (``linecache``
   holds the lines of files and of notebook cells alike);
2. ``ast`` parses that text as an expression: a ``Call`` node whose ``args`` are the
   argument expressions, and ``ast.get_source_segment`` gives each one's text.

When the source cannot be found (code typed at a bare ``python`` prompt, ``exec`` of a
string) or the call passes ``*args``, there is nothing to read: the answer is ``None``
and the widget falls back to its own names. Python 3.10 has no column positions: there
the caller's line is parsed alone and must hold exactly one call of the function.
"""

from __future__ import annotations

import ast
import inspect
import linecache
from types import FrameType

LONGEST = 60  # characters: a longer expression is no title (the widget uses its own name)


def argument_sources(frame: FrameType | None, function: str) -> list[str] | None:
    """The source text of each positional argument of the call that ``frame`` is making
    (of ``function``, named as the caller wrote it or by its own name), or ``None``::

        # in the frame of: strides(t, t.t(), t[1:])
        argument_sources(frame, "strides") == ["t", "t.t()", "t[1:]"]

    An argument written over several lines is given back on one (``ast.unparse``)."""
    if frame is None:
        return None
    found = _call_in_frame(frame) or _call_on_line(frame, function)
    if found is None:
        return None
    call, text = found
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return None  # f(*tensors): which text belongs to which argument is unknown
    sources = []
    for argument in call.args:
        segment = ast.get_source_segment(text, argument)
        if segment is None:
            return None
        sources.append(ast.unparse(argument) if "\n" in segment else segment)
    return sources


def readable_names(sources: list[str] | None, count: int) -> list[str | None]:
    """``count`` titles from ``argument_sources``: the text where it is short enough to be a
    title (at most ``LONGEST`` characters), else ``None`` (the widget's own name)."""
    if sources is None or len(sources) != count:
        return [None] * count
    return [source if len(source) <= LONGEST else None for source in sources]


def _call_in_frame(frame: FrameType) -> tuple[ast.Call, str] | None:
    """The call running in ``frame``, cut out of its source by the instruction's position
    (Python 3.11+), as ``(Call node, the call's text)``."""
    positions = getattr(inspect.getframeinfo(frame, context=0), "positions", None)
    if positions is None or None in (positions.lineno, positions.end_lineno,
                                     positions.col_offset, positions.end_col_offset):  # fmt: skip
        return None
    lines = linecache.getlines(frame.f_code.co_filename, frame.f_globals)
    if not lines or positions.end_lineno > len(lines):
        return None
    # Columns count UTF-8 bytes, as in ast: cut the bytes, then decode.
    chosen = [line.encode() for line in lines[positions.lineno - 1 : positions.end_lineno]]
    chosen[-1] = chosen[-1][: positions.end_col_offset]
    chosen[0] = chosen[0][positions.col_offset :]
    text = b"".join(chosen).decode(errors="replace")
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    return (node, text) if isinstance(node, ast.Call) else None


def _call_on_line(frame: FrameType, function: str) -> tuple[ast.Call, str] | None:
    """Without positions (Python 3.10): the one call of ``function`` on the caller's line."""
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno, frame.f_globals).strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a call spread over several lines
        return None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and _called_name(node) == function]
    return (calls[0], text) if len(calls) == 1 else None


def _called_name(call: ast.Call) -> str | None:
    """``strides`` for ``strides(...)`` and for ``minitorch.widgets.strides(...)``."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None
