#!/usr/bin/env bash
# DeviceCheck query throughput: herald-bench devicecheck (Herald's DeviceCheck client, each call for its
# own device, retries included), then h2load with the same connections, streams and a query body, both
# against the release devicecheck-mock over TLS on loopback (records off). h2load signs with a token
# from herald-bench apns-token: DeviceCheck's bearer token is APNs's provider token.
# Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/devicecheck.sh
#   HERALD_BENCH_DEVICECHECK_COUNT=20000 bash bench/devicecheck.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
require h2load

MOCK="$SCRATCH/release/devicecheck-mock"
MOCK_PORT=${HERALD_BENCH_DEVICECHECK_PORT:-18201}
COUNT=${HERALD_BENCH_DEVICECHECK_COUNT:-100000}
CA=fixtures/tls/ca.crt
KEY=(--key-file fixtures/keys/AuthKey_TESTKEY001.p8 --key-id TESTKEY001 --team-id TESTTEAM01)
BODY="$WORK/devicecheck-body.json"
printf '{"device_token":"%s","transaction_id":"h2load","timestamp":%s}' \
    "$(head -c 1500 /dev/zero | tr '\0' 'Z' | base64 -w0)" "$(date +%s000)" >"$BODY"

"$MOCK" --port "$MOCK_PORT" --no-control --no-record "${KEY[@]}" >"$WORK/devicecheck-mock.log" 2>&1 &
MOCK_PID=$!
trap 'kill "$MOCK_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "listening" "$WORK/devicecheck-mock.log" && break; sleep 0.1; done

echo "== DeviceCheck: herald-bench devicecheck vs h2load, $COUNT queries, TLS, mock on the same machine =="
JWT=$("$HERALD_BENCH" apns-token "${KEY[@]}")
for connections in 1 2; do
    echo "-- $connections connection(s) × 100 streams: herald-bench devicecheck"
    timeout 300 "$HERALD_BENCH" devicecheck --url "https://localhost:$MOCK_PORT" --ca "$CA" "${KEY[@]}" \
        --operation query --count "$COUNT" --connections "$connections" --streams 100
    echo "-- $connections connection(s) × 100 streams: h2load (the machine's ceiling for this mock)"
    timeout 300 h2load -n "$COUNT" -c "$connections" -m 100 -d "$BODY" \
        -H "content-type: application/json" -H "authorization: Bearer $JWT" \
        "https://localhost:$MOCK_PORT/v1/query_two_bits" |
        grep -E "^finished in|^requests:|^status codes:|time for request:"
done
