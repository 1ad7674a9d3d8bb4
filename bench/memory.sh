#!/usr/bin/env bash
# Target 3: resident memory of `herald serve` with 1,000,000 registrations stored.
# Populates 1,000,000 devices (one live registration each; half expire in a day or more), starts the
# server, reads VmRSS, drives it with random GETs and then new registrations, and reads VmRSS and
# VmHWM (peak) again.
#
# Environment: HERALD_BENCH_MEMORY_DEVICES (default 1000000), HERALD_BENCH_DURATION (default 15s).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

DEVICES=${HERALD_BENCH_MEMORY_DEVICES:-1000000}
DURATION=${HERALD_BENCH_DURATION:-15s}
DB="$WORK/memory.sqlite"

echo "== server memory with $DEVICES registrations stored =="
remove_db "$DB"
timeout 900 "$HERALD_BENCH" populate --database "$DB" --devices "$DEVICES" --expired 0 --expiring 0.5 | grep -v '…'
start_server "$DB"
echo "after start:           $(memory_of "$SERVER_PID")"
echo "GET random devices:    $(run_wrk -t2 -c32 -d"$DURATION" --latency -s "$BENCH_ROOT/bench/get.lua" "$CLIENT_URL" -- "$DEVICES")"
echo "after GETs:            $(memory_of "$SERVER_PID")"
echo "new registrations:     $(run_wrk -t2 -c64 -d"$DURATION" --latency -s "$BENCH_ROOT/bench/register.lua" "$CLIENT_URL")"
echo "after registrations:   $(memory_of "$SERVER_PID")"
stop_server
echo "stored: $("$HERALD_BENCH" stats --database "$DB")"
remove_db "$DB"
