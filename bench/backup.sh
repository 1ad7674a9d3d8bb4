#!/usr/bin/env bash
# `herald backup` under write load: a server on a populated SQLite database takes about 1,000
# registrations/s (bench/register-paced.lua: 10 connections, 10 ms between an answer and the next
# request) for HERALD_BENCH_BACKUP_DURATION, first with nothing else running, then with `herald backup`
# copying the database back to back for the whole run. Prints the writers' latency (p50, p99, max) of
# both runs, each backup's duration and size, and the load average.
#
# Environment: HERALD_BENCH_BACKUP_DEVICES (default 1000000), HERALD_BENCH_BACKUP_DURATION (default 30s),
# HERALD_BENCH_BACKUP_CONNECTIONS (10), HERALD_BENCH_PACE_MS (10), plus those of lib.sh. Needs a release
# build (swift build -c release --scratch-path .build-release) and wrk.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

DEVICES=${HERALD_BENCH_BACKUP_DEVICES:-1000000}
DURATION=${HERALD_BENCH_BACKUP_DURATION:-30s}
CONNECTIONS=${HERALD_BENCH_BACKUP_CONNECTIONS:-10}
export HERALD_BENCH_PACE_MS=${HERALD_BENCH_PACE_MS:-10}
DB="$WORK/backup.sqlite"
COPY="$WORK/backup-copy.sqlite"
SCRIPT="$BENCH_ROOT/bench/register-paced.lua"

remove_db "$DB"
rm -f "$COPY"
started=$(date +%s)
timeout 900 "$HERALD_BENCH" populate --database "sqlite://$DB" --devices "$DEVICES" --channels 4 --expired 0 \
    --expiring 0.5 --app bench >"$WORK/populate.log"
echo "populated $DEVICES devices in $(($(date +%s) - started)) s: $(du -m "$DB" | cut -f1) MB"

start_server "$DB"
run_wrk -t2 -c"$CONNECTIONS" -d3s -s "$SCRIPT" "$CLIENT_URL" >/dev/null
echo "== registrations at ~$((CONNECTIONS * 1000 / HERALD_BENCH_PACE_MS))/s, wrk -t2 -c$CONNECTIONS -d$DURATION =="
echo "without a backup: $(run_wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$SCRIPT" "$CLIENT_URL")"

# The same load, with backups back to back until wrk ends; each backup's "wrote" line is kept.
result_file="$WORK/backup-wrk.txt"
run_wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$SCRIPT" "$CLIENT_URL" >"$result_file" &
wrk_pid=$!
sleep 1
backups=0
while kill -0 "$wrk_pid" 2>/dev/null; do
    "$HERALD" backup "$COPY" --database "sqlite://$DB" | grep '^wrote' | sed 's/^/  /'
    backups=$((backups + 1))
done
wait "$wrk_pid"
echo "during $backups backup(s): $(cat "$result_file")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); WAL after: $(du -m "$DB-wal" 2>/dev/null | cut -f1 || echo 0) MB"
stop_server
rm -f "$COPY"
remove_db "$DB"
