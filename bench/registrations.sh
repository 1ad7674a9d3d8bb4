#!/usr/bin/env bash
# Target 1: registrations per second over HTTP keep-alive with durable (group) commits.
# For each connection count, a fresh database, a fresh `herald serve`, a short warm-up, then one
# timed wrk run of bench/register.lua. Afterwards the stored rows are counted, to show that every
# answered registration is in the file.
#
# Environment: HERALD_BENCH_CONNECTIONS (default "16 64 128"), HERALD_BENCH_DURATION (default 15s),
# HERALD_BENCH_THREADS (wrk threads, default 2), plus those of lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

CONNECTIONS=${HERALD_BENCH_CONNECTIONS:-"16 64 128"}
DURATION=${HERALD_BENCH_DURATION:-15s}
THREADS=${HERALD_BENCH_THREADS:-2}
DB="$WORK/registrations.sqlite"
SCRIPT="$BENCH_ROOT/bench/register.lua"

echo "== registrations over HTTP (wrk -t$THREADS -d$DURATION, keep-alive, synchronous=FULL) =="
for connections in $CONNECTIONS; do
    threads=$((connections < THREADS ? connections : THREADS))
    remove_db "$DB"
    start_server "$DB"
    warm_up=$(run_wrk -t"$threads" -c"$connections" -d3s -s "$SCRIPT" "$CLIENT_URL" | sed 's/^requests=\([0-9]*\).*/\1/')
    cpu_before=$(cpu_seconds "$SERVER_PID")
    machine_before=$(cpu_idle_ticks)
    result=$(run_wrk -t"$threads" -c"$connections" -d"$DURATION" --latency -s "$SCRIPT" "$CLIENT_URL")
    machine=$(busy_cores "$machine_before" "$(cpu_idle_ticks)")
    cpu_after=$(cpu_seconds "$SERVER_PID")
    seconds=$(echo "$result" | sed 's/.*seconds=\([0-9.]*\).*/\1/')
    cores=$(awk -v a="$cpu_before" -v b="$cpu_after" -v s="$seconds" 'BEGIN {printf "%.2f", (b - a) / s}')
    rss=$(memory_of "$SERVER_PID")
    stop_server
    echo "connections=$connections $result server_cpu_cores=$cores machine_busy_cores=$machine server_$rss"
    # wrk counts answered requests only; up to one request per connection may be stored unanswered.
    echo "  answered: $warm_up in the 3 s warm-up + those above; stored: $("$HERALD_BENCH" stats --database "$DB")"
done
remove_db "$DB"
