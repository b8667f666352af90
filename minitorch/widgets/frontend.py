"""How a widget's front end (the plain ES modules in ``widgets/``) reaches the browser.

Each widget is an `anywidget <https://anywidget.dev>`_: a Python object whose traits
(``state``, ``selected``...) are kept in sync with a JavaScript model in the page, plus
one ES module that draws it. anywidget loads that module from a *string*, so a module
cannot ``import`` its neighbours by relative path. ``bundle`` therefore inlines them,
each dependency in its own function scope (so two files may both define ``render``)::

    widgets/graph.js:   import { el, svgEl } from "./common.js";
    bundle("graph.js"): const __module_common_js = (() => { ...common.js...
                                                            return { el, svgEl, ... }; })();
                        const { el, svgEl } = __module_common_js;
                        ...the rest of graph.js...

Only this one import form is allowed (named imports from ``"./file.js"``, one per line,
without ``as``). A dependency's ``export default`` line is dropped. The files stay real
ES modules a student can read.

``MinitorchWidget`` is the base class: it adds the *static fallback* every widget has
(``to_text`` for terminals, ``to_svg`` for nbconvert and slides) to the interactive view.

Displayed in a notebook, a widget writes two outputs: the live view, and its *static
twin*, the SVG picture and the text that a saved notebook shows where widgets cannot run
(GitHub, nbviewer, ``nbconvert`` without widget state). The twin has a display id: when
the widget's state changes (a click, a training step, an allocation) the twin is
replaced (``update_display_data``), at most ``STATIC_UPDATES_PER_SECOND`` times a second,
and at the end of every cell that changed it (IPython's ``post_run_cell`` event), so the
saved picture shows the state the notebook was saved in, however slow the machine.
Where the live view runs, the theme's CSS hides the twin (the CSS exists only where the
widget runs). Colab puts each output in its own frame, where that CSS
cannot reach the twin, so there the widget writes one output as before: the live view
with the picture of the moment it was shown.

A live view whose model is gone (the notebook reopened after its kernel restarted,
without widget state) is drawn by JupyterLab as the text "Error displaying widget: model
not found": ipywidgets' renderer never falls back to another output. After a restart in
the same page the old view stays, drawn but dead. So every view marks itself live
(``widgets/connection.js``: the class ``mt-live``, dropped when the kernel restarts), and
the twin carries its own few CSS rules (``TWIN_STYLE``, in the twin's HTML, since no
widget CSS is loaded in a reopened notebook): when the output just above it holds no
live view, that output is hidden and the twin is shown. A live view keeps it hidden.
"""

from __future__ import annotations

import contextlib
import contextvars
import html
import math
import re
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from minitorch.resources import resource_dir

try:
    import anywidget
    import traitlets
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError(
        "minitorch.widgets needs anywidget and ipywidgets: pip install 'minitorch[widgets]'"
    ) from error

IMPORT_LINE = re.compile(r'^import\s*\{([\w$\s,]*)\}\s*from\s*"\./([\w.-]+\.js)";[ \t]*$', re.M)
ANY_LOCAL_IMPORT = re.compile(r'^\s*import\b.*["\']\./', re.M)
EXPORTED_NAME = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([\w$]+)", re.M)
EXPORT_KEYWORD = re.compile(r"^export\s+(?=(async\s+)?(function|const|let|class)\b)", re.M)
EXPORT_DEFAULT = re.compile(r"^export\s+default\b.*$", re.M)
ENTRY_EXPORT = "export default { render };"  # how every widget's entry file ends
LIVE_EXPORT = "export default { render: liveRender(render) };"  # what bundle() makes of it
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_VIEW = ".mt-live"  # a view connected to its model (widgets/connection.js)
# JupyterLab's output structure: each output is a .jp-OutputArea-child; the twin is the
# output right after its live view (see the module docstring).
TWIN_STYLE = (
    "<style>"
    f".jp-OutputArea-child:has(+ .jp-OutputArea-child .minitorch-twin):not(:has({LIVE_VIEW}))"
    " { display: none; }"
    f".jp-OutputArea-child:not(:has({LIVE_VIEW})) + .jp-OutputArea-child .minitorch-twin"
    " { display: block !important; }"
    "</style>"
)
STATIC_UPDATES_PER_SECOND = 2


def widgets_folder() -> Path:
    return resource_dir("widgets")


def _module_variable(name: str) -> str:
    return "__module_" + re.sub(r"\W", "_", name)


def bundle(entry: str) -> str:
    """``entry`` (a file in ``widgets/``) and every local module it imports, as one
    ES module: dependencies first, each once, each in its own scope. The entry's
    ``render`` is wrapped by ``liveRender`` (``widgets/connection.js``), which marks the
    view live while its kernel runs (see ``TWIN_STYLE``)."""
    folder = widgets_folder()
    order: list[str] = []

    def visit(name: str, chain: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in chain:
            raise RuntimeError(f"widgets/{name}: circular import via {' -> '.join(chain)}")
        source = (folder / name).read_text(encoding="utf-8")
        for names, dependency in IMPORT_LINE.findall(source):
            if not all(re.fullmatch(r"[\w$]+", n.strip()) for n in names.split(",") if n.strip()):
                raise RuntimeError(f"widgets/{name}: import names plainly, without `as`: {{{names}}}")
            visit(dependency, chain + (name,))
        order.append(name)

    def link_imports(source: str) -> str:
        return IMPORT_LINE.sub(lambda m: f"const {{{m.group(1)}}} = {_module_variable(m.group(2))};", source)

    visit(entry, ())
    if entry != "connection.js" and "connection.js" not in order:
        order.insert(0, "connection.js")
    parts = []
    for name in order:
        source = (folder / name).read_text(encoding="utf-8")
        if ANY_LOCAL_IMPORT.search(IMPORT_LINE.sub("", source)):
            raise RuntimeError(
                f'widgets/{name}: use only `import {{ a, b }} from "./file.js";` for local '
                "modules (one per line, no `as`), so that bundle() can inline them"
            )
        source = link_imports(source)
        if name != entry:
            exported = ", ".join(EXPORTED_NAME.findall(source))
            body = EXPORT_DEFAULT.sub("", EXPORT_KEYWORD.sub("", source))
            source = f"const {_module_variable(name)} = (() => {{\n{body}\nreturn {{ {exported} }};\n}})();"
        elif entry != "connection.js":
            if source.rstrip().count(ENTRY_EXPORT) != 1 or not source.rstrip().endswith(ENTRY_EXPORT):
                raise RuntimeError(f"widgets/{name}: an entry file ends with `{ENTRY_EXPORT}`")
            live = f"const {{ liveRender }} = {_module_variable('connection.js')};\n{LIVE_EXPORT}"
            source = source.rstrip().removesuffix(ENTRY_EXPORT) + live + "\n"
        parts.append(f"// ===== widgets/{name} =====\n{source}")
    return "\n".join(parts)


def styles(*names: str) -> str:
    """The shared theme (``widgets/theme.css``: type scale, spacing, palette), then the
    CSS files ``names`` from ``widgets/``, concatenated."""
    folder = widgets_folder()
    files = ["theme.css", *(name for name in names if name != "theme.css")]
    return "\n".join((folder / name).read_text(encoding="utf-8") for name in files)


class MinitorchWidget(anywidget.AnyWidget):
    """Base of the minitorch widgets: the live view, plus static pictures and text.

    Where a Jupyter front end runs the widget (JupyterLab, Colab, VS Code) it is
    interactive. Everywhere else the same output carries a static fallback: an SVG
    picture for HTML (``nbconvert`` without widget state) and text for terminals.
    ``error`` holds the message of the last rejected user input (empty when fine):
    the front end shows it in the widget instead of raising.
    """

    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._send_svg_on_request)
        self._twins: list[Any] = []  # display handles of the static twins shown so far
        self._twin_refresh = Throttle(1 / STATIC_UPDATES_PER_SECOND, self._refresh_twins)

    def _send_svg_on_request(self, _widget: Any, content: dict, _buffers: Any) -> None:
        """The front end's "SVG" button asks for the static picture drawn here."""
        if content.get("type") == "export":
            self.send({"type": "svg", "svg": self.to_svg()})

    def to_text(self) -> str:
        """A plain-text description (what a terminal shows)."""
        raise NotImplementedError

    def to_svg(self) -> str:
        """A static SVG picture of the widget's current state (for slides and HTML)."""
        raise NotImplementedError

    def save(self, path: str | Path) -> Path:
        """Write the static picture to ``path`` (``.svg``) or the text (``.txt``)."""
        path = Path(path)
        if path.suffix == ".svg":
            path.write_text(self.to_svg(), encoding="utf-8")
        elif path.suffix == ".txt":
            path.write_text(self.to_text(), encoding="utf-8")
        else:
            raise ValueError(f"save() writes .svg or .txt files, not {path.suffix!r}")
        return path

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict] | None:
        bundle_ = super()._repr_mimebundle_(**kwargs)
        if bundle_ is None:
            return None
        data, metadata = bundle_
        text = self.to_text()
        data["text/plain"] = text
        data["text/html"] = (
            f'<div class="minitorch-static">{self.to_svg()}'
            f"<details><summary>as text</summary><pre>{html.escape(text)}</pre></details></div>"
        )
        return data, metadata

    def _ipython_display_(self) -> None:
        """Show the live view, then its static twin (see the module docstring)."""
        from IPython.display import display

        bundle_ = self._repr_mimebundle_()
        if bundle_ is None:
            return
        data, metadata = bundle_
        if "google.colab" in sys.modules:  # one output: Colab would show the twin too
            display(data, metadata=metadata, raw=True)
            return
        display({WIDGET_VIEW: data[WIDGET_VIEW]}, metadata=metadata, raw=True)
        self._twins.append(display(self._twin_bundle(), raw=True, display_id=True))
        if len(self._twins) == 1:
            self.observe(self._twin_needs_redraw)
            _redraw_twins_after_each_cell(self)

    def _twin_bundle(self) -> dict:
        text = self.to_text()
        return {
            "text/plain": text,
            "text/html": (
                f'<div class="minitorch-static minitorch-twin">{self.to_svg()}'
                f"<details><summary>as text</summary><pre>{html.escape(text)}</pre></details>"
                f"{TWIN_STYLE}</div>"
            ),
        }

    def _twin_needs_redraw(self, change: dict) -> None:
        if self.trait_metadata(change["name"], "sync"):
            self._twin_refresh.request()

    def _refresh_twins(self) -> None:
        bundle_ = self._twin_bundle()
        for twin in self._twins:
            twin.update(bundle_, raw=True)

    def __repr__(self) -> str:
        return self.to_text()

    def _guarded(self, action: Any, *args: Any) -> Any:
        """Run a user action from the front end; turn a bad input into ``error``."""
        try:
            result = action(*args)
        except (ValueError, RuntimeError, IndexError, TypeError, KeyError) as problem:
            self.error = f"{type(problem).__name__}: {problem}"
            return None
        self.error = ""
        return result


class Throttle:
    """Runs ``action`` at most once every ``interval`` seconds: at once when it has not run
    for that long, otherwise once at the end of the interval, so the last request is
    always served::

        request():  if interval has passed since the last run:  run now
                    else if no run is scheduled:                 run at last + interval
        flush():    if a run is scheduled:                       run it now

    A scheduled run happens in a timer thread, inside the context (``contextvars``) of
    the latest request: the kernel then sends its output for the cell that made the
    change, where the notebook expects it. Runs never overlap (``_running``), so the
    last one to start is the last one to finish: an older picture never lands last.
    """

    def __init__(self, interval: float, action: Any) -> None:
        self.interval, self.action = interval, action
        self._last_run = -math.inf
        self._scheduled: threading.Timer | None = None
        self._context = contextvars.copy_context()
        self._lock = threading.Lock()  # guards the three fields above
        self._running = threading.Lock()  # held while the action runs

    def request(self) -> None:
        with self._lock:
            wait = self._last_run + self.interval - time.monotonic()
            if wait > 0:
                self._context = contextvars.copy_context()
                if self._scheduled is None:
                    self._scheduled = threading.Timer(wait, self._run_scheduled)
                    self._scheduled.daemon = True
                    self._scheduled.start()
                return
            self._last_run = time.monotonic()
        self._run()

    def flush(self) -> None:
        """Run the scheduled run now, in this thread, if one is waiting; otherwise wait
        for a run under way to finish. Either way the last request is served on return."""
        with self._lock:
            waiting = self._scheduled is not None
            if waiting:
                self._scheduled.cancel()  # (if its timer fired already, it runs once more: harmless)
                self._scheduled = None
                self._last_run = time.monotonic()
        if waiting:
            self._run()
        else:
            with self._running:
                pass

    def _run_scheduled(self) -> None:
        with self._lock:
            self._scheduled = None
            self._last_run = time.monotonic()
            context = self._context
        self._run(context)

    def _run(self, context: contextvars.Context | None = None) -> None:
        """Run the action (in ``context``, from the timer thread; else in the caller's)."""
        with self._running:
            if context is None:
                self.action()
            else:
                context.run(self.action)


_WIDGETS_WITH_TWINS: weakref.WeakSet = weakref.WeakSet()


def _redraw_twins_after_each_cell(widget: MinitorchWidget) -> None:
    """At the end of each cell, send the last picture of every widget whose twin waits
    for its throttle (one IPython hook for all widgets; the set forgets closed ones)."""
    shell = sys.modules.get("IPython")
    ipython = shell.get_ipython() if shell is not None else None
    if ipython is None:
        return
    if not _WIDGETS_WITH_TWINS:
        with contextlib.suppress(ValueError):  # (registered once, by the first widget)
            ipython.events.unregister("post_run_cell", _flush_twins)
        ipython.events.register("post_run_cell", _flush_twins)
    _WIDGETS_WITH_TWINS.add(widget)


def _flush_twins(*_result: Any) -> None:
    for widget in list(_WIDGETS_WITH_TWINS):
        widget._twin_refresh.flush()
