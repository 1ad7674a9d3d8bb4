#!/usr/bin/env bash
# Issue 49: Backendless RT beside Server-Sent Events, in the same run. One Herald on SQLite; for each rate,
# 1000 subscribers of one channel as SSE streams (`herald-bench pubsub`), then 1000 as RT message
# listeners (`herald-bench pubsub --rt`: Engine.IO v4 WebSockets, as the SDKs end up after the
# upgrade), each time a fresh server, PUBSUB messages at that rate for a while: deliveries per second in
# all and the publish → listener latency (the publisher's CLOCK_MONOTONIC in each message).
# Then 10,000 RT connections opened, subscribed and dropped one after another (`herald-bench
# rt-churn`), with the server's resident memory after 1,000 and after 11,000.
#
# Run through bench/run.sh rt (it builds first), or alone after a release build:
#   bash bench/rt.sh
# Environment: HERALD_BENCH_RT_SUBSCRIBERS (default 1000), HERALD_BENCH_RT_RATES (default "20 40"),
# HERALD_BENCH_RT_SECONDS (default 10), HERALD_BENCH_RT_CYCLES (default 10000), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SUBSCRIBERS=${HERALD_BENCH_RT_SUBSCRIBERS:-1000}
RATES=${HERALD_BENCH_RT_RATES:-20 40}
SECONDS_EACH=${HERALD_BENCH_RT_SECONDS:-10}
CYCLES=${HERALD_BENCH_RT_CYCLES:-10000}
ulimit -n 65536 2>/dev/null || true
PID=""
stop() { if [ -n "$PID" ]; then kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=""; fi; }
trap stop EXIT

serve() {
    local config="$WORK/rt.json" log="$WORK/rt.log"
    remove_db "$WORK/rt.sqlite"
    cat >"$config" <<JSON
{"http":{"host":"$HOST","port":$PORT,"maxConnections":5000},
 "database":{"url":"sqlite://$WORK/rt.sqlite"},
 "sweeper":{"intervalSeconds":0},
 "log":{"level":"warning"},
 "rt":{"pingIntervalSeconds":300,"pingTimeoutSeconds":60},
 "apps":[{"id":"bench","keys":[{"key":"k-admin","role":"admin"}]}]}
JSON
    "$HERALD" serve --config "$config" >"$log" 2>&1 &
    PID=$!
    for _ in $(seq 1 300); do
        curl -sf "http://$HOST:$PORT/health" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "herald serve did not start; its log:" >&2; cat "$log" >&2; return 1
}
rss() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }

echo "== rt: $SUBSCRIBERS subscribers, ${SECONDS_EACH} s per rate, $(nproc) cores; SSE then RT at each rate"
for rate in $RATES; do
    serve
    "$HERALD_BENCH" pubsub --stream-port "$PORT" --publish-port "$PORT" --subscribers "$SUBSCRIBERS" --rate "$rate" \
        --seconds "$SECONDS_EACH" --channel "sse$rate" | sed 's/^/sqlite, SSE: /'
    stop
    serve
    "$HERALD_BENCH" pubsub --rt --stream-port "$PORT" --publish-port "$PORT" --subscribers "$SUBSCRIBERS" --rate "$rate" \
        --seconds "$SECONDS_EACH" --channel "rt$rate" | sed 's/^/sqlite, RT:  /'
    stop
done

echo "== rt-churn: $CYCLES RT connections opened, subscribed and dropped"
serve
"$HERALD_BENCH" rt-churn --port "$PORT" --cycles 1000 >/dev/null
sleep 1
before=$(rss)
"$HERALD_BENCH" rt-churn --port "$PORT" --cycles "$CYCLES"
sleep 1
after=$(rss)
left=$(curl -s "http://$HOST:$PORT/metrics" | awk '/^herald_rt_connections / {print $2}')
echo "rt-churn: resident memory ${before} kB after 1000 cycles, ${after} kB after $((CYCLES + 1000)); RT connections left open: ${left:-0}"
stop
