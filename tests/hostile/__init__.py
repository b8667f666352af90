"""The hostile-input harness (issue 18): inputs a careless or malicious user might pass,
and the promise that none of them crashes, hangs or leaks an internal error.

* ``test_bad_inputs.py`` -- the bad-input suite. Every case is a line of code using
  ``mt`` (minitorch), ``F`` (``minitorch.nn.functional``), ``nn`` and ``np``, run in a
  *subprocess* (``child.py``), so a segfault or an abort is a failed test and not a
  lost run. A case passes when the code returns or raises a Python exception of a
  PyTorch type (``RuntimeError``, ``ValueError``, ``TypeError``, ``IndexError``,
  ``NotImplementedError``); named repros of issue 18 must raise exactly the type
  PyTorch raises. ``cases.py`` holds the table, ``harness.py`` runs it in batches.
* ``test_fuzz_ops.py`` -- seeded differential fuzzing of the op table
  (``tests/op_table.py``) against PyTorch: random shapes (size 0 included), every
  dtype, non-contiguous views; values, dtype, shape and exception type must agree.
* ``test_fuzz_graphs.py`` -- seeded random autograd graphs; gradients against PyTorch.

Environment variables:

* ``MINITORCH_FUZZ=long`` (or a number, e.g. ``MINITORCH_FUZZ=20000``): many more fuzz
  cases than the few minutes CI spends by default.
* ``MINITORCH_HOSTILE_STRICT=1``: run the bad-input subprocesses with ``MALLOC_CHECK_=3``
  (glibc aborts on heap corruption) and ``NUMBA_BOUNDSCHECK=1`` (kernels check every
  index; they are recompiled, so this run uses a smaller case set). ``tests/run.sh``
  runs the suite once more this way.
"""
