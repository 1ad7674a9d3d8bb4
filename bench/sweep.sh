#!/usr/bin/env bash
# Target 2: one sweep of 1,000,000 expired registrations among 2,000,000, and sweeps that find
# nothing among the 1,000,000 left. Runs Herald's own Sweeper in-process through herald-bench, on a
# fresh copy of one populated file per sweep, for two layouts:
#   registration: devices expire in the order they registered (one fixed TTL), so each batch of
#                 the sweeper deletes neighbouring rows;
#   random:       expiration instants unrelated to registration order (the worst case).
# With experiments on, it also prices a larger WAL auto-checkpoint threshold than Herald's.
#
# Environment: HERALD_BENCH_SWEEP_DEVICES (default 2000000), HERALD_BENCH_EMPTY_SWEEPS (default 25),
# HERALD_BENCH_SWEEP_EXPERIMENTS (default 1; 0 skips the experiments).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DEVICES=${HERALD_BENCH_SWEEP_DEVICES:-2000000}
EMPTY_SWEEPS=${HERALD_BENCH_EMPTY_SWEEPS:-25}
EXPERIMENTS=${HERALD_BENCH_SWEEP_EXPERIMENTS:-1}
SOURCE="$WORK/sweep-source.sqlite"
DB="$WORK/sweep.sqlite"

# on_copy COMMAND ARGS…: runs a herald-bench subcommand on a fresh copy of the populated file.
on_copy() {
    remove_db "$DB"
    cp "$SOURCE" "$DB"
    echo "\$ herald-bench $*"
    timeout 900 "$HERALD_BENCH" "$@" --database "$DB" | grep -v '^before:'
}

for order in registration random; do
    echo "== sweep, $order order: $DEVICES devices with one registration each (50% expired, 25% expire later, 25% never) =="
    remove_db "$SOURCE"
    timeout 900 "$HERALD_BENCH" populate --database "$SOURCE" --devices "$DEVICES" --expired 0.5 --expiring 0.25 \
        --expiry-order "$order" | grep -v '…'
    on_copy sweep --batch-size 10000
    on_copy sweep --batch-size 1000
    if [ "$order" = registration ]; then
        echo "-- $EMPTY_SWEEPS sweeps that find nothing, on what the last sweep left"
        timeout 300 "$HERALD_BENCH" sweep --database "$DB" --batch-size 1000 --times "$EMPTY_SWEEPS" | grep -v '^before:'
    fi
    if [ "$EXPERIMENTS" = 1 ]; then
        echo "-- experiments (not Herald's code path)"
        on_copy sweep --batch-size 1000 --writer-pragma wal_autocheckpoint=100000
    fi
done
remove_db "$DB"
remove_db "$SOURCE"
