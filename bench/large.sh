#!/usr/bin/env bash
# Registrations at scale (issue 27): for each backend in HERALD_BENCH_LARGE_BACKENDS (default "postgres
# sqlite"), a database of HERALD_BENCH_LARGE_DEVICES devices (default 10,000,000) with one registration
# each, a share HERALD_BENCH_LARGE_EXPIRED of them expired (default 0.1: 1,000,000), then:
#   1. registrations over HTTP (wrk, 64 connections, durable commits) on an empty database and on the
#      large one: the rate at the end against the rate at the start;
#   2. the database's size and its largest tables and indexes;
#   3. one sweep of the expired registrations by Herald's own Sweeper (herald-bench sweep, batches of
#      1000 as Herald's default), with the rows before and after.
# PostgreSQL is a throwaway cluster from scripts/with-postgres.sh on the same cores. Run through
# bench/run.sh (it builds first; about 45 minutes for both backends), or alone after a release build:
#   bash bench/large.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/large.sh" "$@"
fi
require wrk
require psql
trap stop_server EXIT
cd "$BENCH_ROOT"

BACKENDS=${HERALD_BENCH_LARGE_BACKENDS:-postgres sqlite}
DEVICES=${HERALD_BENCH_LARGE_DEVICES:-10000000}
EXPIRED=${HERALD_BENCH_LARGE_EXPIRED:-0.1}
DURATION=${HERALD_BENCH_DURATION:-15s}
SQLITE_DB="$WORK/large.sqlite"

# sizes BACKEND DB: the database's size and its five largest tables and indexes.
sizes() {
    if [ "$1" = postgres ]; then
        echo "database size: $(psql "$2" -tAc "SELECT pg_size_pretty(pg_database_size(current_database()))")"
        echo "largest (table data, index): $(psql "$2" -tAc "SELECT string_agg(relname || ' ' || pg_size_pretty(pg_relation_size(c.oid)), ', ' ORDER BY pg_relation_size(c.oid) DESC) FROM (SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i') ORDER BY pg_relation_size(c.oid) DESC LIMIT 5) c")"
    else
        echo "database size: $(du -ch "$2"* | tail -1 | cut -f1) (file + WAL)"
        if command -v sqlite3 >/dev/null && sqlite3 "$2" "SELECT 1 FROM dbstat LIMIT 1" >/dev/null 2>&1; then
            echo "largest (table data, index): $(sqlite3 "$2" "SELECT group_concat(name || ' ' || (size / 1048576) || ' MiB', ', ') FROM (SELECT name, SUM(pgsize) AS size FROM dbstat GROUP BY name ORDER BY size DESC LIMIT 5)")"
        fi
    fi
}

echo "== registrations at scale: $DEVICES devices, a share of $EXPIRED expired (PostgreSQL $(psql "$HERALD_TEST_POSTGRES_URL" -tAc 'SHOW server_version')) =="
for backend in $BACKENDS; do
    if [ "$backend" = postgres ]; then
        fresh_pg herald_bench_large; DB=$(pg_url herald_bench_large); URL=$DB
    else
        remove_db "$SQLITE_DB"; DB=$SQLITE_DB; URL="sqlite://$SQLITE_DB"
    fi
    echo "-- $backend: registrations on an empty database --"
    measure_registrations "$backend empty:" "$DB" 64 "$DURATION"
    if [ "$backend" = postgres ]; then fresh_pg herald_bench_large; else remove_db "$SQLITE_DB"; fi
    echo "-- $backend: populating $DEVICES devices --"
    started=$(date +%s)
    timeout 3600 "$HERALD_BENCH" populate --database "$URL" --devices "$DEVICES" --channels 10 --expired "$EXPIRED" \
        --expiring 0 --app bench | grep -v '…'
    echo "populated in $(($(date +%s) - started)) s"
    if [ "$backend" = postgres ]; then psql "$DB" -qc "VACUUM ANALYZE" >/dev/null; fi
    sizes "$backend" "$DB"
    echo "-- $backend: registrations on $DEVICES rows --"
    measure_registrations "$backend at $DEVICES:" "$DB" 64 "$DURATION"
    echo "-- $backend: one sweep of the expired registrations --"
    timeout 1800 "$HERALD_BENCH" sweep --database "$URL" --batch-size 1000
    sizes "$backend" "$DB"
    if [ "$backend" = postgres ]; then
        psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS herald_bench_large WITH (FORCE)" >/dev/null
    else
        remove_db "$SQLITE_DB"
    fi
done
