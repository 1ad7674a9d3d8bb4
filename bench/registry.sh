#!/usr/bin/env bash
# The device registry (issue 10's figures), each beside its reference in the same run:
#   1. launch checks over HTTP (wrk -c64, durable), beside registrations with the same load;
#   2. the admin's device listing over 1,000,000 devices with metadata, a page of 100 per request at a
#      random cursor, per filter (wrk -c8);
#   3. a 100,000-device fan-out with the delivery history on and off, alternating, on SQLite and on
#      PostgreSQL (one instance);
#   4. pruning 1,000,000 history rows, with a probe write every 5 ms whose slowest wait bounds how long
#      pruning held the write lock, on SQLite and on PostgreSQL.
# PostgreSQL is a throwaway cluster from scripts/with-postgres.sh. Run through bench/run.sh (it builds
# first), or alone after a release build: bash bench/registry.sh
# Environment: HERALD_BENCH_DURATION (default 15s), HERALD_BENCH_LIST_DEVICES (default 1000000),
# HERALD_BENCH_FANOUT_DEVICES (default 100000), HERALD_BENCH_REGISTRY_PARTS (default
# "launches listing fanout prune": which of the four to run), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/registry.sh" "$@"
fi
require wrk
require psql
trap stop_server EXIT
cd "$BENCH_ROOT"

DURATION=${HERALD_BENCH_DURATION:-15s}
LIST_DEVICES=${HERALD_BENCH_LIST_DEVICES:-1000000}
FANOUT_DEVICES=${HERALD_BENCH_FANOUT_DEVICES:-100000}
ADMIN=$HERALD_TEST_POSTGRES_URL
DB="$WORK/registry.sqlite"
PARTS=" ${HERALD_BENCH_REGISTRY_PARTS:-launches listing fanout prune} "
part() { [[ "$PARTS" == *" $1 "* ]]; }

if part launches; then
echo "== launch checks over HTTP (wrk -t2 -c64 -d$DURATION, keep-alive, synchronous=FULL), registrations beside them =="
remove_db "$DB"
measure_registrations "registrations (reference):" "$DB" 64 "$DURATION"
remove_db "$DB"
start_server "$DB"
LAUNCH_URL="http://$HOST:$PORT/bench/k-client/devices"
run_wrk -t2 -c64 -d3s -s bench/launch.lua "$LAUNCH_URL" -- 100000 >/dev/null
cpu_before=$(cpu_seconds "$SERVER_PID")
result=$(run_wrk -t2 -c64 -d"$DURATION" --latency -s bench/launch.lua "$LAUNCH_URL" -- 100000)
seconds=$(echo "$result" | sed 's/.*seconds=\([0-9.]*\).*/\1/')
cores=$(awk -v a="$cpu_before" -v b="$(cpu_seconds "$SERVER_PID")" -v s="$seconds" 'BEGIN {printf "%.2f", (b - a) / s}')
echo "launches: $result server_cpu_cores=$cores"
stop_server
echo "  stored: $("$HERALD_BENCH" stats --database "sqlite://$DB")"
remove_db "$DB"

fi
if part listing; then
echo "== admin device listing over $LIST_DEVICES devices (wrk -t2 -c8 -d5s, limit=100, random cursor) =="
timeout 900 "$HERALD_BENCH" populate --database "sqlite://$DB" --devices "$LIST_DEVICES" --channels 4 \
    --expired 0 --expiring 0 --metadata true --app bench | head -1
start_server "$DB"
LIST_URL="http://$HOST:$PORT/bench/k-admin/devices"
SINCE=$(( ($(date +%s) - 86400) * 1000 ))
for filter in "" "os=IOS" "active=true" "active=false" "appVersion=2.3" "seenSince=$SINCE" "channel=channel-1" \
    "os=IOS&active=true&appVersion=2.3&seenSince=$SINCE" "q=phone%2012" "q=install-4242"; do
    echo "filter '${filter:-none}': $(run_wrk -t2 -c8 -d5s --latency -s bench/devices.lua "$LIST_URL" -- "$LIST_DEVICES" "$filter")"
done
stop_server
remove_db "$DB"

fi
if part fanout; then
echo "== fan-out of $FANOUT_DEVICES devices, delivery history off and on, alternating =="
timeout 600 "$HERALD_BENCH" populate --database "sqlite://$DB" --devices "$FANOUT_DEVICES" --channels 1 --expired 0 --expiring 0 --app bench | head -1
fresh_pg herald_bench_hist
timeout 900 "$HERALD_BENCH" populate --database "$(pg_url herald_bench_hist)" --devices "$FANOUT_DEVICES" --channels 1 --expired 0 --expiring 0 --app bench | head -1
for backend in sqlite postgres; do
    if [ $backend = sqlite ]; then URL="sqlite://$DB"; else URL=$(pg_url herald_bench_hist); fi
    for history in false true false true; do
        echo "-- $backend, history.enabled $history --"
        timeout 900 "$HERALD_BENCH" publish --database "$URL" --herald "$HERALD" --fixtures fixtures \
            --app bench --channel channel-0 --rounds 2 --latency-samples 0 --history "$history" | grep -E "fan-out|round"
    done
done
remove_db "$DB"
psql "$ADMIN" -qc "DROP DATABASE IF EXISTS herald_bench_hist WITH (FORCE)" >/dev/null

fi
if part prune; then
echo "== pruning the delivery history (5,000 devices × 250 entries; 150 each past 30 days, cap 50) =="
timeout 900 "$HERALD_BENCH" prune --database "sqlite://$DB"
remove_db "$DB"
fresh_pg herald_bench_prune
timeout 900 "$HERALD_BENCH" prune --database "$(pg_url herald_bench_prune)"
psql "$ADMIN" -qc "DROP DATABASE IF EXISTS herald_bench_prune WITH (FORCE)" >/dev/null
fi
