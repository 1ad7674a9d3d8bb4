#!/usr/bin/env bash
# Fuzzes Herald's HTTP API against its OpenAPI document (Sources/Herald/OpenAPI/openapi.json) with
# schemathesis, the way CI runs it:
#   scripts/fuzz-api.sh [path/to/herald]     (default .build/debug/herald, which `swift test` builds)
#
# It starts the binary on a free port of 127.0.0.1 with a throwaway configuration (one app, one key of
# each role, SQLite in a temporary directory), waits for /ready, and runs schemathesis on the document
# FILE against that server. Every response must be no 5xx, a status the document lists for the
# operation, the content type it lists, and a body that matches its schema (so every error is
# {"code","message"} with one of the codes listed). Exits non-zero on any failure, or if the server died;
# the server is always stopped.
#
# Environment (not HERALD_*: herald refuses a HERALD_ variable that names no setting):
# FUZZ_API_MAX_EXAMPLES (test cases per operation and phase, default 50),
# FUZZ_API_SEED (schemathesis's seed, default random; the run prints it to reproduce a failure),
# FUZZ_API_VENV (where schemathesis is installed, default .venv-fuzz, which .gitignore lists),
# FUZZ_API_REPORT (a directory: also write every request and answer there, as a HAR file).
set -euo pipefail
cd "$(dirname "$0")/.."

# The version this script was tested with; pinned, so a new release cannot break CI unannounced.
SCHEMATHESIS_VERSION=4.32.5
binary="${1:-.build/debug/herald}"
document=Sources/Herald/OpenAPI/openapi.json
max_examples="${FUZZ_API_MAX_EXAMPLES:-50}"
venv="${FUZZ_API_VENV:-.venv-fuzz}"
started=$SECONDS

[ -x "$binary" ] || { echo "fuzz-api: no herald binary at $binary (build it: swift build --product herald)" >&2; exit 2; }

work="$(mktemp -d)"
server_pid=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -qx "schemathesis, version $SCHEMATHESIS_VERSION"; then
    echo "== installing schemathesis $SCHEMATHESIS_VERSION into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

# One app with a key of each role. Port 0: the server picks a free port and prints it. The sweeper's
# timer is off so that it cannot race the fuzzer's own sweeps (each is tested through POST …/admin/sweep).
app=fuzz
cat >"$work/herald.json" <<EOF
{"http": {"host": "127.0.0.1", "port": 0},
 "database": {"url": "sqlite://$work/herald.sqlite"},
 "sweeper": {"intervalSeconds": 0},
 "apps": [{"id": "$app", "keys": [{"key": "fuzz-client-key", "role": "client"},
                                 {"key": "fuzz-server-key", "role": "server"},
                                 {"key": "fuzz-admin-key", "role": "admin"}]}]}
EOF

echo "== starting $binary serve"
"$binary" serve --config "$work/herald.json" >"$work/herald.out" 2>"$work/herald.err" &
server_pid=$!
base=""
for _ in $(seq 300); do
    base="$(sed -n 's/^Herald listening on \(http:[^ ]*\).*/\1/p' "$work/herald.out" | head -n 1)"
    [ -n "$base" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/herald.err" >&2; echo "fuzz-api: herald exited at start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { cat "$work/herald.err" >&2; echo "fuzz-api: herald did not start listening" >&2; exit 1; }
for _ in $(seq 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/ready")" = 200 ] && break
    sleep 0.1
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/ready")" = 200 ] || { echo "fuzz-api: $base/ready is not 200" >&2; exit 1; }
echo "== herald ready at $base"

# A device the document's examples name ("my-phone"), so the examples phase reaches the handlers
# that need an existing device, not only their 404s.
curl -s -o /dev/null -X POST "$base/$app/fuzz-client-key/messaging/registrations" \
    -d '{"deviceToken":"a1b2c3d4e5f60718","deviceId":"my-phone","channels":["news"]}'

# The path's {appId} is fixed to the app above, and {apiKey} to the key of the role each operation
# needs, which the document gives as the extension `x-herald-role` (so a request reaches the real
# handler instead of stopping at 401/403). /metrics and /openapi.json are not fuzzed: they are served by
# code outside this run's scope (the metrics exporter, the embedded document) and have their own tests.
cat >"$work/schemathesis.toml" <<EOF
# No state kept between runs (schemathesis would otherwise write .schemathesis/ into the repository).
[cache]
enabled = false

[parameters]
"path.appId" = "$app"

[[operations]]
include-by = '/x-herald-role == "client"'
parameters = { "path.apiKey" = "fuzz-client-key" }

[[operations]]
include-by = '/x-herald-role == "server"'
parameters = { "path.apiKey" = "fuzz-server-key" }

[[operations]]
include-by = '/x-herald-role == "admin"'
parameters = { "path.apiKey" = "fuzz-admin-key" }
EOF

extra=()
[ -n "${FUZZ_API_SEED:-}" ] && extra+=(--seed "$FUZZ_API_SEED")
[ -n "${FUZZ_API_REPORT:-}" ] && extra+=(--report har --report-dir "$FUZZ_API_REPORT")
echo "== schemathesis $SCHEMATHESIS_VERSION: $max_examples examples per operation and phase"
# Phases: the document's examples, the boundary values of every schema (coverage), random valid and
# invalid requests (fuzzing), and sequences that follow the document's links (stateful: register, then
# read, launch, switch off, erase that device; publish, then read and cancel that message). One worker:
# with two, CPython 3.11 sometimes fails inside hypothesis ("AST constructor recursion depth mismatch"),
# and the run is as fast (the server shares the machine's cores anyway).
status=0
"$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "$document" \
    --url "$base" \
    --exclude-path /metrics --exclude-path /openapi.json \
    --phases examples,coverage,fuzzing,stateful \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,unsupported_method,allow_header_conformance \
    --max-examples "$max_examples" \
    --workers 1 \
    --request-timeout 10 \
    --suppress-health-check filter_too_much,too_slow \
    --generation-database none \
    --no-color \
    "${extra[@]}" || status=$?

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "fuzz-api: herald died during the run; its stderr:" >&2
    cat "$work/herald.err" >&2
    status=1
fi
if grep -q "request failed" "$work/herald.err"; then
    echo "fuzz-api: herald logged internal errors:" >&2
    grep "request failed" "$work/herald.err" | sort | uniq -c | head -n 20 >&2
    status=1
fi
stop_server
echo "== fuzz-api: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
