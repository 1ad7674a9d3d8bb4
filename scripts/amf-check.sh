#!/usr/bin/env bash
# HeraldAMF against an independent AMF implementation, Py3AMF (PyPI), both ways, the way CI runs it:
#   scripts/amf-check.sh
#
# 1. Py3AMF encodes a set of values (typed objects with registered class aliases, anonymous and dynamic
#    objects, repeated strings and objects for references, dates, integers at the U29 edges, doubles,
#    nested and associative arrays, byte arrays, XML, packet headers, requests and results) as remoting
#    packets in AMF0 and in AMF3, with a JSON file beside each giving the packet HeraldAMF must read
#    (Tests/amf/pyamf_check.py write).
# 2. HeraldAMFTests' PyAMFCrossCheckTests decodes each and compares it with its JSON, then writes its own
#    encoding of each expected packet, and of every Backendless sample in fixtures/amf as it reads it.
# 3. Py3AMF decodes everything HeraldAMF wrote and compares it with the JSON (pyamf_check.py verify),
#    printing "N passed, N failed".
# Exits non-zero on any mismatch.
#
# Environment: AMF_CHECK_VENV (where Py3AMF is installed and kept; default .venv-amf, which .gitignore lists).
set -euo pipefail
cd "$(dirname "$0")/.."

# The versions this script was tested with; pinned (with Py3AMF's one dependency), so a new release cannot
# break CI unannounced. Py3AMF is the maintained Python 3 line of PyAMF; the `pyamf` name is Python 2 only.
PY3AMF_VERSION=0.9.1
REQUIREMENTS="Py3AMF==$PY3AMF_VERSION defusedxml==0.7.1"
venv="${AMF_CHECK_VENV:-.venv-amf}"
started=$SECONDS

if ! "$venv/bin/python" -c "import pyamf, importlib.metadata as m; assert m.version('Py3AMF') == '$PY3AMF_VERSION'" 2>/dev/null; then
    echo "== installing $REQUIREMENTS into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $REQUIREMENTS
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

echo "== Py3AMF $PY3AMF_VERSION writes its packets"
"$venv/bin/python" Tests/amf/pyamf_check.py write "$work"

echo "== HeraldAMF reads them and writes its own"
HERALD_AMF_PY_DIR="$work" swift test --filter HeraldAMFTests.PyAMFCrossCheckTests

echo "== Py3AMF reads what HeraldAMF wrote"
status=0
"$venv/bin/python" Tests/amf/pyamf_check.py verify "$work" || status=$?
echo "== amf-check: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
