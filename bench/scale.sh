#!/usr/bin/env bash
# Fan-out cost against channel size (issue 20): for each size in HERALD_BENCH_SCALE_SIZES (default
# "100000 1000000"), one channel of that many devices fanned out HERALD_BENCH_SCALE_ROUNDS times (default 3)
# on SQLite, on PostgreSQL with one instance, and on PostgreSQL with two instances sharing the fan-out,
# with each round's rate, Herald's CPU, PostgreSQL's CPU and peak RSS. A fan-out whose pages cost more
# the later they start shows here as a rate that falls with the channel's size.
# PostgreSQL is a throwaway cluster from scripts/with-postgres.sh on the same cores. Run through
# bench/run.sh (it builds first), or alone after a release build:
#   bash bench/scale.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/scale.sh" "$@"
fi
require psql
cd "$BENCH_ROOT"

SIZES=${HERALD_BENCH_SCALE_SIZES:-100000 1000000}
ROUNDS=${HERALD_BENCH_SCALE_ROUNDS:-3}
ADMIN=$HERALD_TEST_POSTGRES_URL

echo "== fan-out against channel size: $SIZES devices, $ROUNDS rounds each (PostgreSQL $(psql "$ADMIN" -tAc 'SHOW server_version')) =="
for size in $SIZES; do
    SQLITE_DB="$WORK/scale-$size.sqlite"
    remove_db "$SQLITE_DB"
    echo "-- populating $size devices: SQLite, then PostgreSQL --"
    timeout 1200 "$HERALD_BENCH" populate --database "sqlite://$SQLITE_DB" --devices "$size" --channels 1 --expired 0 --expiring 0 --app bench | head -1
    fresh_pg "herald_bench_scale_$size"
    timeout 1800 "$HERALD_BENCH" populate --database "$(pg_url "herald_bench_scale_$size")" --devices "$size" --channels 1 --expired 0 --expiring 0 --app bench | head -1
    psql "$(pg_url "herald_bench_scale_$size")" -qc "VACUUM ANALYZE" >/dev/null
    echo "database size: SQLite $(du -sh "$SQLITE_DB"* | awk '{print $1}' | paste -sd+) (file + WAL); PostgreSQL $(psql "$(pg_url "herald_bench_scale_$size")" -tAc "SELECT pg_size_pretty(pg_database_size(current_database()))")"
    echo "largest PostgreSQL relations: $(psql "$(pg_url "herald_bench_scale_$size")" -tAc "SELECT string_agg(relname || ' ' || pg_size_pretty(size), ', ') FROM (SELECT c.relname, pg_total_relation_size(c.oid) AS size FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i') ORDER BY pg_relation_size(c.oid) DESC LIMIT 5) t")"
    for run in "sqlite 1" "postgres 1" "postgres 2"; do
        set -- $run
        if [ "$1" = sqlite ]; then DB="sqlite://$SQLITE_DB"; else DB=$(pg_url "herald_bench_scale_$size"); fi
        echo "-- $size devices: $1, $2 instance(s) --"
        timeout 3600 "$HERALD_BENCH" publish --database "$DB" --herald "$HERALD" --fixtures fixtures \
            --app bench --channel channel-0 --rounds "$ROUNDS" --latency-samples 0 --instances "$2"
    done
    remove_db "$SQLITE_DB"
    psql "$ADMIN" -qc "DROP DATABASE IF EXISTS herald_bench_scale_$size WITH (FORCE)" >/dev/null
done
