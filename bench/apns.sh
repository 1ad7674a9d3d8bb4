#!/usr/bin/env bash
# APNs client throughput: herald-bench apns, then plain C on libcurl (bench/curl-ceiling.c) on one thread
# and on a thread per connection, then h2load, all with the same connections and streams against the
# release apns-mock over TLS on loopback (records off, so memory stays flat).
# Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/apns.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"

MOCK="$SCRATCH/release/apns-mock"
MOCK_PORT=${HERALD_BENCH_APNS_PORT:-18197}
COUNT=${HERALD_BENCH_APNS_COUNT:-200000}
KEY=(--key-file fixtures/keys/AuthKey_TESTKEY001.p8 --key-id TESTKEY001 --team-id TESTTEAM01)
TOPIC=com.example.herald
PAYLOAD="$WORK/apns-payload.json"
printf '%s' '{"aps":{"alert":{"title":"Herald","body":"benchmark"}}}' >"$PAYLOAD"

"$MOCK" --port "$MOCK_PORT" --no-control --no-record >"$WORK/apns-mock.log" 2>&1 &
MOCK_PID=$!
trap 'kill "$MOCK_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "listening" "$WORK/apns-mock.log" && break; sleep 0.1; done

echo "== APNs: herald-bench apns vs h2load, $COUNT notifications, TLS, mock on the same machine =="
TOKEN=$(printf 'ab%.0s' $(seq 1 32))
JWT=$("$HERALD_BENCH" apns-token "${KEY[@]}")
CEILING=$(curl_ceiling)
for streams in 100 500; do
    echo "-- 2 connections × $streams streams: herald-bench apns"
    timeout 300 "$HERALD_BENCH" apns --url "https://localhost:$MOCK_PORT" --ca fixtures/tls/ca.crt "${KEY[@]}" \
        --topic "$TOPIC" --count "$COUNT" --connections 2 --streams "$streams" --payload "$PAYLOAD"
    for threads in 1 2; do
        echo "-- 2 connections × $streams streams: curl-ceiling, $threads thread(s) (plain C on libcurl)"
        timeout 300 "$CEILING" --url "https://localhost:$MOCK_PORT/3/device/$TOKEN" --ca fixtures/tls/ca.crt \
            --count "$COUNT" --connections 2 --streams "$streams" --threads "$threads" --body "$PAYLOAD" \
            -H "apns-topic: $TOPIC" -H "apns-push-type: alert" -H "authorization: bearer $JWT" \
            -H "content-type: application/json"
    done
    echo "-- 2 connections × $streams streams: h2load (the machine's ceiling for this mock)"
    timeout 300 h2load -n "$COUNT" -c 2 -m "$streams" -d "$PAYLOAD" \
        -H "apns-topic: $TOPIC" -H "apns-push-type: alert" -H "authorization: bearer $JWT" \
        "https://localhost:$MOCK_PORT/3/device/$TOKEN" | grep -E "^finished in|^requests:|^status codes:|time for request:"
done
