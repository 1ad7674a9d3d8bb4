# Shared helpers for the bench/*.sh scripts; source it, do not run it.
# Everything here talks to 127.0.0.1 only and stops only the server process it started itself.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${HERALD_BENCH_SCRATCH:-$BENCH_ROOT/.build-release}
HERALD="$SCRATCH/release/herald"
HERALD_BENCH="$SCRATCH/release/herald-bench"
WORK=${HERALD_BENCH_WORK:-/tmp/herald-bench}
PORT=${HERALD_BENCH_PORT:-18081}
HOST=127.0.0.1
CLIENT_URL="http://$HOST:$PORT/bench/k-client/messaging/registrations"
SERVER_PID=""

mkdir -p "$WORK"

# remove_db FILE: deletes a SQLite file with its WAL and shared-memory files.
remove_db() { rm -f "$1" "$1-wal" "$1-shm"; }

# db_url DB: a database URL as given (postgres://…, sqlite://…), or a SQLite file path as a sqlite:// URL.
db_url() { case $1 in *://*) echo "$1" ;; *) echo "sqlite://$1" ;; esac; }

# write_config FILE DB: the server configuration for one run (sweeper timer off). BENCH_APP_PROVIDERS, when
# set, is JSON members added to the bench app (its "apns" and "fcm" blocks).
write_config() {
    cat >"$1" <<JSON
{"http":{"host":"$HOST","port":$PORT},
 "database":{"url":"$(db_url "$2")"},
 "sweeper":{"intervalSeconds":0,"batchSize":1000},
 "apps":[{"id":"bench","keys":[{"key":"k-client","role":"client"},{"key":"k-admin","role":"admin"}]${BENCH_APP_PROVIDERS:+,$BENCH_APP_PROVIDERS}}]}
JSON
}

# start_server DB: starts `herald serve` on DB (a SQLite file or a URL) and waits (30 s at most) until it listens.
start_server() {
    local db=$1 config="$WORK/config.json" log="$WORK/server.log"
    write_config "$config" "$db"
    # Emptied here, not by the redirection below: that runs in the background and may come after the first
    # look for "Herald listening", which would then find the previous server's line.
    : >"$log"
    "$HERALD" serve --config "$config" --host "$HOST" --port "$PORT" --database "$(db_url "$db")" >"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        if grep -q "Herald listening" "$log"; then return 0; fi
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "herald serve did not start; its log:" >&2
    cat "$log" >&2
    stop_server
    return 1
}

# stop_server: SIGTERM to the server this script started, SIGKILL after 15 s.
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 150); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# memory_of PID: "VmRSS=… VmHWM=…" in MiB from /proc/PID/status.
memory_of() {
    awk '/^VmRSS:/ {rss=$2} /^VmHWM:/ {hwm=$2} END {printf "VmRSS=%.1fMiB VmHWM=%.1fMiB\n", rss/1024, hwm/1024}' "/proc/$1/status"
}

# cpu_seconds PID: user + system CPU time the process has used so far, in seconds.
cpu_seconds() {
    awk -v tick="$(getconf CLK_TCK)" '{printf "%.2f\n", ($14 + $15) / tick}' "/proc/$1/stat"
}

# database_cpu_seconds: user + system CPU time all `postgres` processes have used so far (0 without any);
# the pool's backends live for the whole run, so a difference over a run is PostgreSQL's share of it.
database_cpu_seconds() {
    local total=0 pid
    for pid in $(pgrep -x postgres || true); do
        total=$(awk -v t="$total" -v tick="$(getconf CLK_TCK)" '{printf "%.2f", t + ($14 + $15) / tick}' "/proc/$pid/stat" 2>/dev/null || echo "$total")
    done
    echo "$total"
}

# cpu_idle_ticks: "idle total" jiffies of the whole machine so far (idle includes iowait).
cpu_idle_ticks() {
    awk '/^cpu / {idle = $5 + $6; total = 0; for (i = 2; i <= NF; i++) total += $i; print idle, total}' /proc/stat
}

# busy_cores BEFORE AFTER: cores' worth of CPU the whole machine used between two cpu_idle_ticks.
busy_cores() {
    echo "$1 $2" | awk -v n="$(nproc)" '{printf "%.2f", n * (1 - ($3 - $1) / ($4 - $2))}'
}

# run_wrk ARGS…: wrk with a hard time limit on top of its own -d; its full output goes to
# $WORK/wrk.log, and only its RESULT line (printed by the Lua script's done()) is printed.
run_wrk() {
    echo "\$ wrk $*" >>"$WORK/wrk.log"
    timeout 300 wrk "$@" | tee -a "$WORK/wrk.log" | grep '^RESULT' | sed 's/^RESULT //'
}

# require TOOL…: fails with a hint when a command is missing.
require() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "missing '$tool' (apt-get install -y $tool)" >&2; exit 1; }
    done
}

# measure_registrations LABEL DB CONNECTIONS DURATION [SCRIPT URL]: a fresh `herald serve` on DB (the
# caller prepares it empty), a 3 s wrk warm-up, one timed wrk run of SCRIPT (default bench/register.lua
# against CLIENT_URL), then one line of figures (rate, latency, server CPU, machine CPU, memory) and the
# rows stored afterwards.
measure_registrations() {
    local label=$1 db=$2 connections=$3 duration=$4 script=${5:-$BENCH_ROOT/bench/register.lua} url=${6:-$CLIENT_URL} threads
    threads=$((connections < 2 ? connections : 2))
    start_server "$db"
    local warm_up cpu_before machine_before result machine cpu_after seconds cores rss db_before db_cores
    warm_up=$(run_wrk -t"$threads" -c"$connections" -d3s -s "$script" "$url" | sed 's/^requests=\([0-9]*\).*/\1/')
    cpu_before=$(cpu_seconds "$SERVER_PID")
    db_before=$(database_cpu_seconds)
    machine_before=$(cpu_idle_ticks)
    result=$(run_wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$script" "$url")
    machine=$(busy_cores "$machine_before" "$(cpu_idle_ticks)")
    cpu_after=$(cpu_seconds "$SERVER_PID")
    seconds=$(echo "$result" | sed 's/.*seconds=\([0-9.]*\).*/\1/')
    cores=$(awk -v a="$cpu_before" -v b="$cpu_after" -v s="$seconds" 'BEGIN {printf "%.2f", (b - a) / s}')
    db_cores=$(awk -v a="$db_before" -v b="$(database_cpu_seconds)" -v s="$seconds" 'BEGIN {printf "%.2f", (b - a) / s}')
    rss=$(memory_of "$SERVER_PID")
    stop_server
    echo "$label $result server_cpu_cores=$cores database_cpu_cores=$db_cores machine_busy_cores=$machine server_$rss"
    # wrk counts answered requests only; up to one request per connection may be stored unanswered.
    echo "  answered: $warm_up in the 3 s warm-up + those above; stored: $("$HERALD_BENCH" stats --database "$(db_url "$db")")"
}

# PostgreSQL, for scripts run under scripts/with-postgres.sh (which sets HERALD_TEST_POSTGRES_URL to the
# cluster's admin database): the URL of database $1 on that server, and a fresh empty database $1.
pg_url() { echo "${HERALD_TEST_POSTGRES_URL%%/postgres\?*}/$1?sslmode=disable"; }
fresh_pg() {
    psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null
    psql "$HERALD_TEST_POSTGRES_URL" -qc "CREATE DATABASE $1" >/dev/null
}

# start_mock NAME PORT ARGS…: the release mock NAME on PORT with ARGS, its log in $WORK/NAME.log, waited for
# (10 s at most); its PID is added to MOCK_PIDS for the caller's trap to stop.
MOCK_PIDS=()
start_mock() {
    local name=$1 port=$2
    shift 2
    "$SCRATCH/release/$name" --port "$port" "$@" >"$WORK/$name.log" 2>&1 &
    MOCK_PIDS+=($!)
    for _ in $(seq 1 100); do grep -q "listening" "$WORK/$name.log" && return 0; sleep 0.1; done
    echo "$name did not start" >&2
    return 1
}

# curl_ceiling: builds bench/curl-ceiling.c (plain C on libcurl: the reference for Herald's clients) into
# $WORK once and prints its path.
curl_ceiling() {
    local binary="$WORK/curl-ceiling"
    if [ ! -x "$binary" ] || [ "$BENCH_ROOT/bench/curl-ceiling.c" -nt "$binary" ]; then
        cc -O2 -o "$binary" "$BENCH_ROOT/bench/curl-ceiling.c" -lcurl -lpthread
    fi
    echo "$binary"
}
