#!/usr/bin/env bash
# Issue 24: publish → Server-Sent Events subscribers. 1000 subscriptions to one channel, a stream of
# each, then PUBSUB messages at a fixed rate for a while; `herald-bench pubsub` reads every stream on one
# thread and reports deliveries per second and the publish → subscriber latency (p50, p99, max; the
# publisher's CLOCK_MONOTONIC in each message, read against the same clock on arrival).
#
# Runs: one instance on SQLite; then two instances on one PostgreSQL database (a throwaway cluster from
# scripts/with-postgres.sh), streams spread over both and messages published through both in turn, so
# half of each stream's messages cross instances (through LISTEN/NOTIFY).
#
# Run through bench/run.sh pubsub (it builds first), or alone after a release build:
#   bash bench/pubsub.sh
# Environment: HERALD_BENCH_PUBSUB_SUBSCRIBERS (default 1000), HERALD_BENCH_PUBSUB_RATES (default "10 20 40"),
# HERALD_BENCH_PUBSUB_SECONDS (default 10), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/pubsub.sh" "$@"
fi
SUBSCRIBERS=${HERALD_BENCH_PUBSUB_SUBSCRIBERS:-1000}
RATES=${HERALD_BENCH_PUBSUB_RATES:-10 20 40}
SECONDS_EACH=${HERALD_BENCH_PUBSUB_SECONDS:-10}
ulimit -n 65536 2>/dev/null || true
PIDS=()
stop_all() { for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done; PIDS=(); }
trap stop_all EXIT

# serve DB PORT NAME: starts `herald serve` on DB at PORT and waits until it listens.
serve() {
    local config="$WORK/pubsub-$3.json" log="$WORK/pubsub-$3.log"
    cat >"$config" <<JSON
{"http":{"host":"$HOST","port":$2,"maxConnections":5000},
 "database":{"url":"$1"},
 "sweeper":{"intervalSeconds":0},
 "log":{"level":"warning"},
 "apps":[{"id":"bench","keys":[{"key":"k-admin","role":"admin"}]}]}
JSON
    "$HERALD" serve --config "$config" >"$log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 300); do
        curl -sf "http://$HOST:$2/health" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "herald serve did not start; its log:" >&2; cat "$log" >&2; return 1
}

echo "== pubsub: $SUBSCRIBERS SSE subscribers, ${SECONDS_EACH} s per rate, $(nproc) cores"
for rate in $RATES; do
    remove_db "$WORK/pubsub.sqlite"
    serve "sqlite://$WORK/pubsub.sqlite" "$PORT" one
    "$HERALD_BENCH" pubsub --stream-port "$PORT" --publish-port "$PORT" --subscribers "$SUBSCRIBERS" --rate "$rate" \
        --seconds "$SECONDS_EACH" --channel "one$rate" | sed 's/^/sqlite, one instance: /'
    stop_all
done
for rate in $RATES; do
    serve "$HERALD_TEST_POSTGRES_URL" "$PORT" a
    serve "$HERALD_TEST_POSTGRES_URL" "$((PORT + 1))" b
    "$HERALD_BENCH" pubsub --stream-port "$PORT" --stream-port "$((PORT + 1))" --publish-port "$PORT" --publish-port "$((PORT + 1))" \
        --subscribers "$SUBSCRIBERS" --rate "$rate" --seconds "$SECONDS_EACH" --channel "two$rate" | sed 's/^/postgres, two instances: /'
    stop_all
done
