#!/usr/bin/env bash
# What PostgreSQL itself spends to record a fan-out's delivery history, and which of the table's indexes
# it goes to: pages of 500 rows inserted the way a checkpoint inserts them (four arrays spread by
# `unnest`), into Herald's `deliveries` (`herald migrate`) already holding DEPTH rows for each of 100,000
# devices, with every index and with `deliveries_by_time` and/or `deliveries_by_device_key` dropped. Each
# variant runs in a transaction that is rolled back, so all start from the same table; the time is the
# inserts' alone (one transaction: no commits, as in the fan-out's own checkpoints minus their fsyncs).
# The last two variants put the index of before migration 0023, (app_id, device_id, id), in the place of
# `deliveries_by_device_key`, and a hash index on device_id (BENCHMARKS.md sections 31 and 32).
# HERALD_BENCH_HISTORY_IDS=scattered gives the devices ids spread over the key space (`dev-` and an md5),
# as apps' UUIDs are, instead of `dev-000000001 …` in key order.
# Run after a release build (BENCHMARKS.md sections 30 to 32):
#   bash bench/pg-history.sh                         # depth 12, 100 pages of 500, 3 times each
#   HERALD_BENCH_HISTORY_DEPTH=30 HERALD_BENCH_HISTORY_IDS=scattered bash bench/pg-history.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/pg-history.sh" "$@"
fi
require psql
cd "$BENCH_ROOT"

DEPTH=${HERALD_BENCH_HISTORY_DEPTH:-12}
PAGES=${HERALD_BENCH_HISTORY_PAGES:-100}
REPEAT=${HERALD_BENCH_HISTORY_REPEAT:-3}
IDS=${HERALD_BENCH_HISTORY_IDS:-sequential}
case $IDS in
    sequential) device() { echo "'dev-' || lpad(($1)::text, 9, '0')"; } ;;
    scattered) device() { echo "'dev-' || md5(($1)::text)"; } ;;
    *) echo "HERALD_BENCH_HISTORY_IDS is sequential or scattered, not $IDS" >&2; exit 2 ;;
esac
fresh_pg herald_bench_history
DB=$(pg_url herald_bench_history)
trap 'psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS herald_bench_history WITH (FORCE)" >/dev/null' EXIT
timeout 300 "$HERALD" migrate --database "$DB" >/dev/null
# DEPTH earlier fan-outs' rows for devices dev-000000001 … dev-000100000, in the order fan-outs write them.
psql "$DB" -qc "
    INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason)
    SELECT 'bench', d, $(device d), 'earlier-' || m, m, 'sent', NULL
    FROM generate_series(1, $DEPTH) m, generate_series(1, 100000) d ORDER BY m, d" -c "VACUUM ANALYZE deliveries"

insert="DO \$\$
DECLARE keys bigint[]; ids text[]; outcomes text[]; reasons text[];
BEGIN
  FOR p IN 0..$((PAGES - 1)) LOOP
    SELECT array_agg(p * 500 + g), array_agg($(device "p * 500 + g")), array_agg('sent'::text), array_agg(''::text)
      INTO keys, ids, outcomes, reasons FROM generate_series(1, 500) g;
    INSERT INTO deliveries (app_id, device_key, device_id, message_id, delivered_at, outcome, reason)
      SELECT 'bench', t.device_key, t.device_id, 'this-one', 1, t.outcome, NULLIF(t.reason, '')
      FROM unnest(keys, ids, outcomes, reasons) AS t(device_key, device_id, outcome, reason);
  END LOOP;
END \$\$;"

echo "== PostgreSQL $(psql "$DB" -tAc 'SHOW server_version' | cut -d' ' -f1): $PAGES pages of 500 history rows into deliveries holding $DEPTH rows a device for 100,000 devices ($IDS ids) =="
for variant in "every index" "without deliveries_by_time" "without deliveries_by_device_key" "without both" \
    "the device id index of before 0023 instead" "a hash index on device_id instead"; do
    case $variant in
        "every index") drop="" ;;
        "without deliveries_by_time") drop="DROP INDEX deliveries_by_time;" ;;
        "without deliveries_by_device_key") drop="DROP INDEX deliveries_by_device_key;" ;;
        "without both") drop="DROP INDEX deliveries_by_time; DROP INDEX deliveries_by_device_key;" ;;
        "the device id index"*) drop="DROP INDEX deliveries_by_device_key; CREATE INDEX deliveries_by_device ON deliveries (app_id, device_id, id);" ;;
        "a hash index"*) drop="DROP INDEX deliveries_by_device_key; CREATE INDEX deliveries_by_device_hash ON deliveries USING hash (device_id);" ;;
    esac
    figures=""
    for _ in $(seq 1 "$REPEAT"); do
        ms=$(psql -q "$DB" -c "BEGIN" -c "$drop SELECT 1" -c '\timing on' -c "$insert" -c '\timing off' -c "ROLLBACK" 2>&1 \
            | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
        figures="$figures $(awk -v ms="$ms" -v rows=$((PAGES * 500)) 'BEGIN { printf "%.2f", ms * 1000 / rows }')"
    done
    echo "$variant: µs a history row:$figures"
done
