#!/usr/bin/env bash
# Runs the console's browser tests (Tests/browser/console_test.py) the way CI does: Playwright from PyPI
# driving Debian's Chromium (browser downloads are not possible here, so the script launches
# /usr/bin/chromium through `executable_path`) against the built herald binary.
#   scripts/browser-tests.sh [path/to/herald]     (default .build/debug/herald, which `swift test` builds)
#
# Environment: BROWSER_TESTS_VENV (where Playwright is installed, default .venv-browser, which .gitignore
# lists); HERALD_CONSOLE_SCREENSHOTS=DIR also saves each page as a PNG in DIR (docs/console holds the
# committed ones: `HERALD_CONSOLE_SCREENSHOTS=docs/console scripts/browser-tests.sh` refreshes them).
set -euo pipefail
cd "$(dirname "$0")/.."

# The version this script was tested with; pinned, so a new release cannot break CI unannounced.
PLAYWRIGHT_VERSION=1.65.2
binary="${1:-.build/debug/herald}"
venv="${BROWSER_TESTS_VENV:-.venv-browser}"

[ -x "$binary" ] || { echo "browser-tests: no herald binary at $binary (build it: swift build --product herald)" >&2; exit 2; }
command -v chromium >/dev/null || { echo "browser-tests: no chromium (apt-get install chromium)" >&2; exit 2; }
if ! "$venv/bin/python" -c "import playwright, importlib.metadata as m; assert m.version('playwright') == '$PLAYWRIGHT_VERSION'" 2>/dev/null; then
    echo "== installing playwright $PLAYWRIGHT_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "playwright==$PLAYWRIGHT_VERSION"
fi
"$venv/bin/python" Tests/browser/console_test.py "$binary"
