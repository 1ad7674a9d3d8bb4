#!/usr/bin/env bash
# Backendless RT (the SDKs' socket.io `subscribe`) against Herald with independent clients, the way CI
# runs it:
#   scripts/rt-check.sh [path/to/herald]      (default .build/debug/herald, which `swift test` builds)
#
# Runs Tests/rt (pytest) twice over: with python-socketio 5 (Engine.IO v4 / Socket.IO v5, what the JS and
# Java SDKs speak) and with python-socketio 4 (Engine.IO v3 / Socket.IO v4, the Swift SDK's), each over
# polling, WebSocket and the upgrade. First against one Herald on SQLite; then, when
# HERALD_TEST_POSTGRES_URL is set (scripts/with-postgres.sh sets it), against two Herald instances on one
# PostgreSQL database, where a subscriber on one receives what the other publishes.
#
# Environment: RT_CHECK_VENVS (where the two virtual environments are kept; default .venv-rt, which
# .gitignore lists).
set -euo pipefail
cd "$(dirname "$0")/.."

herald="${1:-.build/debug/herald}"
[ -x "$herald" ] || { echo "rt-check: no herald binary at $herald (build it: swift build --product herald)" >&2; exit 2; }
started=$SECONDS
venvs="${RT_CHECK_VENVS:-.venv-rt}"
# Pinned, so a new release cannot break CI unannounced. The 4.x line is the last to speak Engine.IO v3.
COMMON="pytest==8.3.4 requests==2.32.3 websocket-client==1.8.0"
V5="python-socketio==5.11.4 python-engineio==4.9.1 $COMMON"
V4="python-socketio==4.6.1 python-engineio==3.14.2 $COMMON"

venv() { # name requirements…
    local dir="$venvs/$1"; shift
    if ! "$dir/bin/python" -c "import socketio, pytest" 2>/dev/null || [ "$(cat "$dir/.requirements" 2>/dev/null)" != "$*" ]; then
        echo "== installing $* into $dir" >&2
        rm -rf "$dir"
        python3 -m venv "$dir"
        # shellcheck disable=SC2086
        "$dir/bin/pip" install --quiet --disable-pip-version-check $* >&2
        echo "$*" >"$dir/.requirements"
    fi
    echo "$dir"
}
v5="$(venv socketio5 $V5)"
v4="$(venv socketio4 $V4)"

work="$(mktemp -d)"
# Each server's pid is kept in a file: `start` runs in a command substitution's subshell, where a variable
# set would be lost (and the servers outlived the script).
cleanup() {
    local file pid
    for file in "$work"/*.pid; do
        [ -f "$file" ] && kill -TERM "$(cat "$file")" 2>/dev/null || true
    done
    for file in "$work"/*.pid; do
        [ -f "$file" ] || continue
        pid="$(cat "$file")"
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME DATABASE-URL: starts herald with one app and prints its address once it is ready.
start() {
    cat >"$work/$1.json" <<JSON
{"http": {"host": "127.0.0.1", "port": 0},
 "database": {"url": "$2"},
 "sweeper": {"intervalSeconds": 0},
 "rt": {"pingIntervalSeconds": 5, "pingTimeoutSeconds": 5},
 "apps": [{"id": "rtapp",
           "keys": [{"key": "rt-check-client-key", "role": "client"},
                    {"key": "rt-check-server-key", "role": "server"}]}]}
JSON
    "$herald" serve --config "$work/$1.json" >"$work/$1.out" 2>"$work/$1.err" &
    local pid=$! base=""
    echo "$pid" >"$work/$1.pid"
    for _ in $(seq 300); do
        base="$(sed -n 's/^Herald listening on \(http:[^ ]*\).*/\1/p' "$work/$1.out" | head -n 1)"
        if [ -n "$base" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/ready")" = 200 ]; then
            echo "$base"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$work/$1.err" >&2
    echo "rt-check: herald ($1) did not start" >&2
    return 1
}

status=0
run() { # label venv
    echo "== rt-check: $1"
    RT_APP=rtapp RT_CLIENT_KEY=rt-check-client-key RT_SERVER_KEY=rt-check-server-key \
        "$2/bin/python" -m pytest -q -p no:cacheprovider Tests/rt || status=1
}

export RT_HERALD RT_HERALD_2
RT_HERALD="$(start sqlite "sqlite://$work/herald.sqlite")"
RT_HERALD_2=""
run "SQLite, python-socketio 5 (EIO 4)" "$v5"
run "SQLite, python-socketio 4 (EIO 3)" "$v4"

if [ -n "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    # A database of its own on the cluster, so the instances start from an empty schema.
    database="rtcheck_$$"
    psql -q "$HERALD_TEST_POSTGRES_URL" -c "CREATE DATABASE $database" >/dev/null
    url="${HERALD_TEST_POSTGRES_URL/\/postgres\?//$database?}"
    RT_HERALD="$(start pg1 "$url")"
    RT_HERALD_2="$(start pg2 "$url")"
    run "two instances on PostgreSQL, python-socketio 5 (EIO 4)" "$v5"
    run "two instances on PostgreSQL, python-socketio 4 (EIO 3)" "$v4"
elif [ -n "${CI:-}" ]; then
    echo "rt-check: HERALD_TEST_POSTGRES_URL is not set; CI runs this under scripts/with-postgres.sh" >&2
    status=1
fi

for name in sqlite pg1 pg2; do
    [ -f "$work/$name.err" ] || continue
    if grep -q -i "fatal\|crash" "$work/$name.err"; then
        echo "rt-check: herald ($name) logged:" >&2
        tail -n 20 "$work/$name.err" >&2
        status=1
    fi
done
echo "== rt-check: $([ "$status" = 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
