#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then run the whole suite.
#   bash tests/run.sh            # everything (and the strict bad-input run below)
#   bash tests/run.sh -k matmul  # extra arguments go to pytest
# As root (CI) it also installs Debian's Chromium and Graphviz for the browser tests;
# elsewhere those tests are skipped when Chromium is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --disable-pip-version-check -e ".[course,dev,cuda,widgets,nn,viz,distributed]"

if [ "$(id -u)" = "0" ] && ! command -v chromium >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium graphviz >/dev/null
fi

mkdir -p test-output
if [ "$#" -gt 0 ]; then  # a chosen part of the suite: one process, as plain pytest runs it
    python -m pytest -q -p no:cacheprovider "$@"
    exit
fi

# The whole suite, in two worker processes (pytest-xdist; tests/conftest.py keeps each file,
# and the MPI tests, on one worker): a single pytest process keeps one core busy compiling
# Numba kernels while the other waits. The tests that drive JupyterLab in Chromium run
# afterwards in one process of their own, since their waits for the page are timed and
# another worker's compiling would only make them slower, never more thorough.
# Every part runs even when an earlier one failed, so one run shows every failure.
failed=0
python -m pytest -q -p no:cacheprovider -n "${MINITORCH_TEST_WORKERS:-2}" --dist loadgroup \
    --ignore=tests/browser --ignore=tests/playground || failed=1
python -m pytest -q -p no:cacheprovider tests/browser tests/playground || failed=1

# A full run also repeats the bad-input suite under glibc's heap checks (MALLOC_CHECK_=3)
# and Numba's bounds checks (NUMBA_BOUNDSCHECK=1, kernels recompiled), with fewer cases:
# an out-of-bounds read or a corrupted heap that went unnoticed becomes a failure.
MINITORCH_HOSTILE_STRICT=1 python -m pytest -q -p no:cacheprovider tests/hostile/test_bad_inputs.py || failed=1
exit "$failed"
