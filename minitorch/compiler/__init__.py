"""Static graphs beside define-by-run: ``minitorch.compile`` captures a function's kernel
calls once and replays them (``compiled.py`` tells the whole story).

* ``graph.py``    -- the ``Graph``: buffers and nodes a student can print and walk;
* ``capture.py``  -- the recorder that builds it while the function runs eagerly;
* ``guards.py``   -- when a graph may be replayed, and why it was captured again;
* ``state.py``    -- the tensors it reads without receiving them, found again each call;
* ``replay.py``   -- running a graph again: the plain loop, and the prepared ``Program``;
* ``passes/``     -- optimisations, one per file;
* ``naming.py``   -- ``model.0.weight`` instead of ``b3`` in the listing;
* ``source_location.py`` -- ``In [3], line 3``: where the student wrote what was refused.
"""

from minitorch.compiler.capture import CaptureError
from minitorch.compiler.compiled import CompiledFunction, compile  # noqa: A004 (PyTorch's name)
from minitorch.compiler.graph import Buffer, Graph, Node, Operand, OutputSpec
from minitorch.compiler.passes import DEFAULT_PASSES, PASSES
from minitorch.compiler.replay import Program, replay

__all__ = ["PASSES", "DEFAULT_PASSES", "Buffer", "CaptureError", "CompiledFunction", "Graph",
           "Node", "Operand", "OutputSpec", "Program", "compile", "replay"]  # fmt: skip
