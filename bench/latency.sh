#!/usr/bin/env bash
# Publish → first APNs request on PostgreSQL, with one instance and with two sharing the database, round by
# round: `herald-bench publish --rounds 0` (the latency only: publishes to a one-device channel, each timed
# until the mock APNs sees its request). With HERALD_BENCH_BASELINE set to another `herald` binary (the code
# before a change), each round runs it too, in turn with this build's, so a change is measured against the
# code before it on a VM whose speed drifts between minutes. Run after a release build:
#   bash bench/latency.sh                                                  # 4 rounds of 300 publishes
#   cp .build-release/release/herald /tmp/herald-before   # before the change, then rebuild
#   HERALD_BENCH_BASELINE=/tmp/herald-before bash bench/latency.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/latency.sh" "$@"
fi
cd "$BENCH_ROOT"

ROUNDS=${HERALD_BENCH_LATENCY_ROUNDS:-4}
SAMPLES=${HERALD_BENCH_LATENCY_SAMPLES:-300}
BASELINE=${HERALD_BENCH_BASELINE:-}
if [ -n "$BASELINE" ] && [ ! -x "$BASELINE" ]; then
    echo "HERALD_BENCH_BASELINE is not an executable: $BASELINE" >&2
    exit 2
fi
fresh_pg herald_bench_latency
DB=$(pg_url herald_bench_latency)
trap 'psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS herald_bench_latency WITH (FORCE)" >/dev/null' EXIT
# The app and a small channel for `publish` to find; the latency's own one-device channel it makes itself.
timeout 300 "$HERALD_BENCH" populate --database "$DB" --devices 1000 --channels 1 --expired 0 --expiring 0 --app bench | head -1

binaries=("$HERALD")
[ -n "$BASELINE" ] && binaries=("$BASELINE" "$HERALD")
echo "== publish → first APNs request on PostgreSQL, $SAMPLES publishes a run, $ROUNDS rounds${BASELINE:+, the baseline $BASELINE and this build in turn} =="
for round in $(seq 1 "$ROUNDS"); do
    for binary in "${binaries[@]}"; do
        label=$([ "$binary" = "$HERALD" ] && echo "this build" || echo "baseline")
        for instances in 1 2; do
            line=$(timeout 600 "$HERALD_BENCH" publish --database "$DB" --herald "$binary" --fixtures fixtures \
                --app bench --channel channel-0 --rounds 0 --latency-samples "$SAMPLES" --instances "$instances" \
                | sed -n 's/^publish → first APNs request, [0-9]* publishes: //p')
            echo "round $round, $label, $instances instance(s): $line"
        done
    done
done
