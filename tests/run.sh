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
python -m pytest -q -p no:cacheprovider "$@"

# A full run also repeats the bad-input suite under glibc's heap checks (MALLOC_CHECK_=3)
# and Numba's bounds checks (NUMBA_BOUNDSCHECK=1, kernels recompiled), with fewer cases:
# an out-of-bounds read or a corrupted heap that went unnoticed becomes a failure.
if [ "$#" -eq 0 ]; then
    MINITORCH_HOSTILE_STRICT=1 python -m pytest -q -p no:cacheprovider tests/hostile/test_bad_inputs.py
fi
