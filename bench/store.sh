#!/usr/bin/env bash
# Why registrations stop where they do: the same registrations straight into the store (no HTTP),
# and the cost of one statement's round trip on the writer (why registrations are written in batches).
#
# Environment: HERALD_BENCH_STORE_COUNT (registrations per run, default 20000).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

COUNT=${HERALD_BENCH_STORE_COUNT:-20000}
DB="$WORK/store.sqlite"

echo "== store without HTTP ($COUNT registrations per run) =="
for concurrency in 1 16 64 128; do
    remove_db "$DB"
    timeout 300 "$HERALD_BENCH" register --database "$DB" --concurrency "$concurrency" --count "$COUNT"
done
echo "-- one statement's round trip on the writer (SELECT 1, 64 writers)"
for statements in 1 4; do
    remove_db "$DB"
    timeout 300 "$HERALD_BENCH" statements --database "$DB" --statements "$statements" --count "$COUNT"
done
remove_db "$DB"
