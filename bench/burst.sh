#!/usr/bin/env bash
# Issue 22: memory stays bounded under a registration burst the database cannot absorb.
#
# PostgreSQL (a throwaway cluster from scripts/with-postgres.sh, on the same cores) first absorbs what it
# can: wrk -c64 for 10 s gives the rate. Then the burst: psql holds `LOCK TABLE registrations` for
# $STALL seconds (a database that absorbs nothing meanwhile: a lock, a stalled disk, a failover), while
# wrk keeps $CONNECTIONS connections registering, more than 10× what the database absorbed in the same
# time. The burst runs twice, with `database.writeQueueLimit` at its default (2048) and effectively off
# (1000000), and reports for each: what wrk sent, the 503s, the write queue's peak (sampled from
# /metrics every 0.2 s), the registrations stored, and the server's memory (VmRSS, VmHWM).
#
# Run through bench/run.sh burst (it builds first), or alone after a release build:
#   bash bench/burst.sh
# Environment: HERALD_BENCH_BURST_CONNECTIONS (default 6000), HERALD_BENCH_BURST_STALL (default 8), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/burst.sh" "$@"
fi
require wrk
require psql
trap stop_server EXIT

CONNECTIONS=${HERALD_BENCH_BURST_CONNECTIONS:-6000}
STALL=${HERALD_BENCH_BURST_STALL:-8}
ulimit -n "$((CONNECTIONS * 2 + 1000))" 2>/dev/null || true

# burst_server DB LIMIT: `herald serve` on DB with room for every connection and the given queue limit.
burst_server() {
    local config="$WORK/burst.json" log="$WORK/server.log"
    cat >"$config" <<JSON
{"http":{"host":"$HOST","port":$PORT,"maxConnections":$((CONNECTIONS + 100)),"idleTimeoutSeconds":60},
 "database":{"url":"$1","writeQueueLimit":$2},
 "sweeper":{"intervalSeconds":0},
 "apps":[{"id":"bench","keys":[{"key":"k-client","role":"client"}]}]}
JSON
    "$HERALD" serve --config "$config" >"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        grep -q "Herald listening" "$log" && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$log" >&2
    return 1
}

# queue_peak SECONDS: samples herald_write_queue_waiting{write="registrations"} every 0.2 s; prints the peak.
queue_peak() {
    local peak=0 now
    for _ in $(seq 1 $(($1 * 5))); do
        now=$(curl -s "http://$HOST:$PORT/metrics" | awk '/^herald_write_queue_waiting\{write="registrations"\}/ {print int($2)}')
        [ -n "$now" ] && [ "$now" -gt "$peak" ] && peak=$now
        sleep 0.2
    done
    echo "$peak"
}

refused() { curl -s "http://$HOST:$PORT/metrics" | awk '/^herald_write_queue_refused_total\{write="registrations"\}/ {print int($2)}'; }

echo "== registration burst during a $STALL s database stall, $CONNECTIONS connections (PostgreSQL $(psql "$HERALD_TEST_POSTGRES_URL" -tAc 'SHOW server_version')) =="
fresh_pg herald_bench_burst
DB=$(pg_url herald_bench_burst)
burst_server "$DB" 2048
echo "absorbed without a stall (wrk -t2 -c64 -d10s): $(run_wrk -t2 -c64 -d10s -s "$BENCH_ROOT/bench/register.lua" "$CLIENT_URL")"
stop_server

for limit in 2048 1000000; do
    fresh_pg herald_bench_burst
    burst_server "$DB" "$limit"
    before=$(memory_of "$SERVER_PID")
    psql "$DB" -qc "BEGIN; LOCK TABLE registrations IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep($STALL); COMMIT;" >/dev/null &
    locker=$!
    sleep 0.3
    queue_peak "$STALL" >"$WORK/queue-peak" &
    sampler=$!
    result=$(run_wrk -t2 -c"$CONNECTIONS" -d"${STALL}s" --timeout 30s -s "$BENCH_ROOT/bench/register.lua" "$CLIENT_URL")
    wait "$locker" "$sampler"
    sleep 2
    echo "writeQueueLimit=$limit: wrk $result"
    echo "  queue peak=$(cat "$WORK/queue-peak") refused(503)=$(refused) memory before=[$before] after=[$(memory_of "$SERVER_PID")]"
    stop_server
    echo "  stored: $("$HERALD_BENCH" stats --database "$DB")"
done
