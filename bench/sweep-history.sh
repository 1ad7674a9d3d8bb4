#!/usr/bin/env bash
# What removing expired devices that have delivery history costs the sweep (BENCHMARKS.md section 32): a SQLite
# database of DEVICES devices with scattered ids, half of them expired, each with three history rows (written with
# the sqlite3 CLI in the layout of the build's schema: filed under the device's key since migration 0023, by
# device id before), then one `herald-bench sweep`. Since 0023 each removed device with history also gets a row
# in `retired_device_keys`. Run after a release build; HERALD_BENCH_SCRATCH points at another build to compare:
#   bash bench/sweep-history.sh
#   HERALD_BENCH_SCRATCH=/path/to/older/.build-release bash bench/sweep-history.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require sqlite3
DEVICES=${HERALD_BENCH_SWEEP_HISTORY_DEVICES:-400000}
db="$WORK/sweep-history.sqlite"
trap 'remove_db "$db"' EXIT
remove_db "$db"
"$HERALD_BENCH" populate --database "sqlite://$db" --devices "$DEVICES" --channels 1 --expired 0.5 --expiring 0 \
    --device-ids scattered --app bench | head -1
if sqlite3 "$db" "SELECT 1 FROM pragma_table_info('deliveries') WHERE name = 'device_key'" | grep -q 1; then
    layout="by device key"; columns="app_id, device_key, device_id"; values="d.app_id, d.id, d.device_id"
else
    layout="by device id"; columns="app_id, device_id"; values="d.app_id, d.device_id"
fi
sqlite3 "$db" "PRAGMA journal_mode=WAL;
    WITH RECURSIVE m(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM m WHERE j < 3)
    INSERT INTO deliveries ($columns, message_id, delivered_at, outcome)
    SELECT $values, 'message:' || j, j, 'sent' FROM m, devices d ORDER BY j, d.id" >/dev/null
echo "== a sweep of the expired half of $DEVICES devices with 3 history rows each (history $layout) =="
"$HERALD_BENCH" sweep --database "sqlite://$db" --batch-size 1000 | grep -E "sweep #"
