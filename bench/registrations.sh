#!/usr/bin/env bash
# Target 1: registrations per second over HTTP keep-alive with durable (group) commits.
# For each connection count, a fresh database, a fresh `herald serve`, a short warm-up, then one
# timed wrk run of bench/register.lua. Afterwards the stored rows are counted, to show that every
# answered registration is in the file.
#
# Environment: HERALD_BENCH_CONNECTIONS (default "16 64 128"), HERALD_BENCH_DURATION (default 15s),
# plus those of lib.sh (wrk runs 2 threads).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

CONNECTIONS=${HERALD_BENCH_CONNECTIONS:-"16 64 128"}
DURATION=${HERALD_BENCH_DURATION:-15s}
DB="$WORK/registrations.sqlite"

echo "== registrations over HTTP (wrk -t2 -d$DURATION, keep-alive, synchronous=FULL) =="
for connections in $CONNECTIONS; do
    remove_db "$DB"
    measure_registrations "connections=$connections" "$DB" "$connections" "$DURATION"
done
remove_db "$DB"
