#!/usr/bin/env bash
# Reads every Web Push body Herald sends with an independent decrypter (Python's http-ece, PyPI), the way
# CI runs it:
#   scripts/webpush-check.sh [path/to/herald] [path/to/webpush-mock]
#                            (defaults .build/debug/herald and .build/debug/webpush-mock, which `swift test` builds)
#
# It starts the mock push service (fixtures/webpush-mock) over TLS with the fixture certificate on free
# ports, and herald on a free port of 127.0.0.1 with a throwaway configuration (SQLite in a temporary
# directory, one app `shop` with a client and a server key and a `webPush` block: the test VAPID key in
# fixtures/webpush, the fixture CA, private hosts allowed). Then scripts/webpush-check.py registers 50 WEB
# devices with subscriptions the mock knows the keys of, publishes a few messages (non-ASCII text, every
# kind of header, one at the 3993-byte plaintext limit, one a byte over it), and opens every body the mock
# received (`bodyBase64` of GET /control/messages) with http-ece and keys derived from the subscription's
# id as the mock derives them: each must equal the mock's own decryption and the JSON the publish should
# give, and no two may share a salt or an ephemeral key. Exits 1 naming the first mismatch, 2 if a binary
# is missing; both processes are always stopped.
#
# Environment: WEBPUSH_CHECK_VENV (where http-ece is installed and kept; default a temporary directory,
# removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."

# The versions this script was tested with; pinned (with cryptography's own dependencies), so a new
# release cannot break CI unannounced.
HTTP_ECE_VERSION=1.2.1
REQUIREMENTS="http-ece==$HTTP_ECE_VERSION cryptography==50.0.2 cffi==2.1.1 pycparser==3.12"
herald="${1:-.build/debug/herald}"
mock="${2:-.build/debug/webpush-mock}"
started=$SECONDS

[ -x "$herald" ] || { echo "webpush-check: no herald binary at $herald (build it: swift build --product herald)" >&2; exit 2; }
[ -x "$mock" ] || { echo "webpush-check: no webpush-mock binary at $mock (build it: swift build --product webpush-mock)" >&2; exit 2; }

work="$(mktemp -d)"
mock_pid=""
herald_pid=""
stop() { # pid: SIGTERM, then wait for it
    if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
        kill -TERM "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
    fi
}
cleanup() {
    stop "$herald_pid"
    stop "$mock_pid"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

venv="${WEBPUSH_CHECK_VENV:-$work/venv}"
if ! "$venv/bin/python" -c "import http_ece, importlib.metadata as m; assert m.version('http-ece') == '$HTTP_ECE_VERSION'" 2>/dev/null; then
    echo "== installing http-ece $HTTP_ECE_VERSION into $venv"
    python3 -m venv "$venv"
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $REQUIREMENTS
fi

# wait_for FILE PID NAME SED-EXPRESSION: the first line of FILE the expression prints, once the process prints it.
wait_for() {
    local found=""
    for _ in $(seq 300); do
        found="$(sed -n "$4" "$1" | head -n 1)"
        [ -n "$found" ] && { echo "$found"; return 0; }
        kill -0 "$2" 2>/dev/null || { cat "$work/$3.err" >&2; echo "webpush-check: $3 exited at start" >&2; return 1; }
        sleep 0.1
    done
    cat "$work/$3.err" >&2
    echo "webpush-check: $3 did not start listening" >&2
    return 1
}

# The mock: TLS (ALPN h2) with the fixture certificate, which fixtures/tls/ca.crt signed; both ports free.
echo "== starting $mock"
"$mock" serve --port 0 --control-port 0 --cert fixtures/tls/server.crt --key fixtures/tls/server.key \
    >"$work/webpush-mock.out" 2>"$work/webpush-mock.err" &
mock_pid=$!
# "webpush-mock listening on https://localhost:P (…), pushes to https://127.0.0.1:P/push/<id>, control on http://127.0.0.1:C"
line="$(wait_for "$work/webpush-mock.out" "$mock_pid" webpush-mock '/^webpush-mock listening on /p')"
push_base="$(sed -n 's|.* pushes to \(https://[^ ]*\)/push/<id>.*|\1|p' <<<"$line")"
control="$(sed -n 's|.* control on \(http://[^ ]*\).*|\1|p' <<<"$line")"
[ -n "$push_base" ] && [ -n "$control" ] || { echo "webpush-check: cannot read the mock's line: $line" >&2; exit 1; }

# One app with a client and a server key and Web Push towards the mock. Port 0: the server picks a free
# port and prints it. The sweeper's timer is off: nothing here expires.
cat >"$work/herald.json" <<EOF
{"http": {"host": "127.0.0.1", "port": 0},
 "database": {"url": "sqlite://$work/herald.sqlite"},
 "sweeper": {"intervalSeconds": 0},
 "apps": [{"id": "shop",
           "keys": [{"key": "webpush-check-client-key", "role": "client"},
                    {"key": "webpush-check-server-key", "role": "server"}],
           "webPush": {"privateKeyFile": "$PWD/fixtures/webpush/vapid-test.pem",
                       "subject": "mailto:ci@herald.example",
                       "caFile": "$PWD/fixtures/tls/ca.crt",
                       "allowPrivateHosts": true}}]}
EOF

echo "== starting $herald serve"
"$herald" serve --config "$work/herald.json" >"$work/herald.out" 2>"$work/herald.err" &
herald_pid=$!
base="$(wait_for "$work/herald.out" "$herald_pid" herald 's/^Herald listening on \(http:[^ ]*\).*/\1/p')"
for _ in $(seq 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/ready")" = 200 ] && break
    sleep 0.1
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/ready")" = 200 ] || { echo "webpush-check: $base/ready is not 200" >&2; exit 1; }
echo "== herald ready at $base, webpush-mock at $push_base (control $control)"

status=0
"$venv/bin/python" -u scripts/webpush-check.py \
    --herald "$base" --app shop --client-key webpush-check-client-key --server-key webpush-check-server-key \
    --mock "$mock" --push-base "$push_base" --control "$control" \
    --vapid-key fixtures/webpush/vapid-test.pem || status=$?

if ! kill -0 "$herald_pid" 2>/dev/null; then
    echo "webpush-check: herald died during the run; its stderr:" >&2
    cat "$work/herald.err" >&2
    status=1
fi
if [ "$status" != 0 ]; then
    echo "webpush-check: the last lines herald logged:" >&2
    tail -n 20 "$work/herald.err" >&2
fi
echo "== webpush-check: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
