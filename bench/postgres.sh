#!/usr/bin/env bash
# The PostgreSQL backend beside SQLite, in one run on one machine (issue 9's figures):
#   1. registrations over HTTP, durable commits, wrk with 64 connections: SQLite, then PostgreSQL;
#   2. publish → first APNs request latency and the fan-out of a 100,000-device channel: SQLite, then
#      PostgreSQL with one instance, then PostgreSQL with two instances sharing the fan-out (with each
#      instance's CPU), each with the server's memory.
# PostgreSQL is a throwaway cluster from scripts/with-postgres.sh (fsync on, synchronous_commit on) on
# the same cores. Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/postgres.sh
# Environment: HERALD_BENCH_PG_DEVICES (default 100000), HERALD_BENCH_DURATION (default 15s),
# HERALD_BENCH_PG_REGISTRATION_ROUNDS (pairs of registration runs, default 1), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/postgres.sh" "$@"
fi
require wrk
require psql
trap stop_server EXIT
cd "$BENCH_ROOT"

DEVICES=${HERALD_BENCH_PG_DEVICES:-100000}
DURATION=${HERALD_BENCH_DURATION:-15s}
# Pairs of registration runs (SQLite, then PostgreSQL, each on a fresh database): the VM's speed drifts
# within minutes, so more than one pair shows how far one ratio can be trusted.
REGISTRATION_ROUNDS=${HERALD_BENCH_PG_REGISTRATION_ROUNDS:-1}
ADMIN=$HERALD_TEST_POSTGRES_URL

echo "== PostgreSQL $(psql "$ADMIN" -tAc 'SHOW server_version') beside SQLite (fsync $(psql "$ADMIN" -tAc 'SHOW fsync'), synchronous_commit $(psql "$ADMIN" -tAc 'SHOW synchronous_commit')) =="

echo "== registrations over HTTP (wrk -t2 -c64 -d$DURATION, keep-alive, durable commits) =="
SQLITE_DB="$WORK/pg-compare.sqlite"
for round in $(seq 1 "$REGISTRATION_ROUNDS"); do
    for backend in sqlite postgres; do
        if [ $backend = sqlite ]; then remove_db "$SQLITE_DB"; DB=$SQLITE_DB; else fresh_pg herald_bench_reg; DB=$(pg_url herald_bench_reg); fi
        measure_registrations "$backend:" "$DB" 64 "$DURATION"
    done
done
remove_db "$SQLITE_DB"

echo "== publish and fan-out of $DEVICES devices =="
remove_db "$SQLITE_DB"
timeout 600 "$HERALD_BENCH" populate --database "sqlite://$SQLITE_DB" --devices "$DEVICES" --channels 1 --expired 0 --expiring 0 --app bench | head -1
fresh_pg herald_bench_pub
timeout 900 "$HERALD_BENCH" populate --database "$(pg_url herald_bench_pub)" --devices "$DEVICES" --channels 1 --expired 0 --expiring 0 --app bench | head -1
for run in "sqlite 1" "postgres 1" "postgres 2"; do
    set -- $run
    if [ "$1" = sqlite ]; then DB="sqlite://$SQLITE_DB"; else DB=$(pg_url herald_bench_pub); fi
    echo "-- $1, $2 instance(s) --"
    timeout 1800 "$HERALD_BENCH" publish --database "$DB" --herald "$HERALD" --fixtures fixtures \
        --app bench --channel channel-0 --rounds 3 --latency-samples 200 --instances "$2"
done
remove_db "$SQLITE_DB"
psql "$ADMIN" -qc "DROP DATABASE IF EXISTS herald_bench_pub WITH (FORCE)" -c "DROP DATABASE IF EXISTS herald_bench_reg WITH (FORCE)" >/dev/null
