#!/usr/bin/env bash
# `herald backup` under write load: a server on a populated SQLite database takes about 1,000
# registrations/s (bench/register-paced.lua: 10 connections, 10 ms between an answer and the next
# request) for HERALD_BENCH_BACKUP_DURATION, first with nothing else running, then with `herald backup`
# copying the database back to back for the whole run, once for each variant of its options. Prints the
# writers' latency (p50, p99, max) of every run, each backup's duration, phases and size, and the load
# average.
#
# Environment: HERALD_BENCH_BACKUP_DEVICES (default 1000000), HERALD_BENCH_BACKUP_DURATION (default 30s),
# HERALD_BENCH_BACKUP_CONNECTIONS (10), HERALD_BENCH_PACE_MS (10), HERALD_BENCH_BACKUP_VARIANTS (the
# backup's options for each run with backups, separated by "|"; default "--sync-every 0|": the copy
# synced once at the end as before section 41, then the defaults; a variant may start with a command
# to run the backup under, e.g. "nice -n 10 ionice -c 3"; "none" is a run without backups, so that
# variants can alternate with the baseline on a machine whose load changes), plus those of lib.sh. Needs a release build
# (swift build -c release --scratch-path .build-release) and wrk.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

DEVICES=${HERALD_BENCH_BACKUP_DEVICES:-1000000}
DURATION=${HERALD_BENCH_BACKUP_DURATION:-30s}
VARIANTS=${HERALD_BENCH_BACKUP_VARIANTS:---sync-every 0|}
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

# The same load, with backups back to back until wrk ends, for each variant; each backup's "wrote" line is kept.
IFS='|' read -r -a variants <<<"$VARIANTS|"
for variant in "${variants[@]}"; do
    # A leading command (nice, ionice…) runs the backup; the rest are its options.
    read -r -a words <<<"$variant"
    prefix=()
    while [ ${#words[@]} -gt 0 ] && [[ ${words[0]} != --* ]]; do prefix+=("${words[0]}"); words=("${words[@]:1}"); done
    result_file="$WORK/backup-wrk.txt"
    echo "-- backup options: ${variant:-(defaults)}; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    run_wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$SCRIPT" "$CLIENT_URL" >"$result_file" &
    wrk_pid=$!
    sleep 1
    backups=0
    while [ "$variant" != none ] && kill -0 "$wrk_pid" 2>/dev/null; do
        ${prefix[@]+"${prefix[@]}"} "$HERALD" backup "$COPY" --database "sqlite://$DB" ${words[@]+"${words[@]}"} | grep '^wrote' | sed 's/^/  /'
        backups=$((backups + 1))
    done
    wait "$wrk_pid"
    echo "during $backups backup(s): $(cat "$result_file")"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); WAL after: $(du -m "$DB-wal" 2>/dev/null | cut -f1 || echo 0) MB"
    rm -f "$COPY"
done
stop_server
rm -f "$COPY"
remove_db "$DB"
