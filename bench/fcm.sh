#!/usr/bin/env bash
# FCM client throughput: herald-bench fcm, then plain C on libcurl (bench/curl-ceiling.c) on one thread and
# on a thread per connection, then h2load, all with the same connections, streams and request body against
# the release fcm-mock over TLS on loopback (records off, so memory stays flat).
# The test service account's token_uri is rewritten to the mock's token endpoint; h2load sends with an
# access token fetched through HeraldFCM's token code (herald-bench fcm-token).
# Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/fcm.sh
#   HERALD_BENCH_FCM_COUNT=20000 bash bench/fcm.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
require h2load

MOCK="$SCRATCH/release/fcm-mock"
MOCK_PORT=${HERALD_BENCH_FCM_PORT:-18199}
COUNT=${HERALD_BENCH_FCM_COUNT:-200000}
CA=fixtures/tls/ca.crt
ACCOUNT="$WORK/fcm-service-account.json"
sed "s#\"token_uri\": *\"[^\"]*\"#\"token_uri\": \"https://localhost:$MOCK_PORT/token\"#" \
    fixtures/fcm/service-account.json >"$ACCOUNT"
PROJECT=$(sed -n 's/.*"project_id": *"\([^"]*\)".*/\1/p' "$ACCOUNT")
# One request body as herald-bench fcm sends it, with a registration token of a real token's length (163).
TOKEN="h2load-bench-device-01:APA91b$(printf 'x%.0s' $(seq 1 134))"
BODY="$WORK/fcm-body.json"
printf '{"message":{"token":"%s","notification":{"title":"Herald","body":"benchmark"}}}' "$TOKEN" >"$BODY"

"$MOCK" --port "$MOCK_PORT" --no-control --no-record --service-account fixtures/fcm/service-account.json \
    >"$WORK/fcm-mock.log" 2>&1 &
MOCK_PID=$!
trap 'kill "$MOCK_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "listening" "$WORK/fcm-mock.log" && break; sleep 0.1; done

echo "== FCM: herald-bench fcm vs h2load, $COUNT messages, TLS, mock on the same machine =="
ACCESS_TOKEN=$(timeout 30 "$HERALD_BENCH" fcm-token --service-account "$ACCOUNT" --ca "$CA")
CEILING=$(curl_ceiling)
for streams in 100 500; do
    echo "-- 2 connections × $streams streams: herald-bench fcm"
    timeout 300 "$HERALD_BENCH" fcm --url "https://localhost:$MOCK_PORT" --ca "$CA" --service-account "$ACCOUNT" \
        --count "$COUNT" --connections 2 --streams "$streams"
    for threads in 1 2; do
        echo "-- 2 connections × $streams streams: curl-ceiling, $threads thread(s) (plain C on libcurl)"
        timeout 300 "$CEILING" --url "https://localhost:$MOCK_PORT/v1/projects/$PROJECT/messages:send" --ca "$CA" \
            --count "$COUNT" --connections 2 --streams "$streams" --threads "$threads" --body "$BODY" \
            -H "content-type: application/json" -H "authorization: Bearer $ACCESS_TOKEN"
    done
    echo "-- 2 connections × $streams streams: h2load (the machine's ceiling for this mock)"
    timeout 300 h2load -n "$COUNT" -c 2 -m "$streams" -d "$BODY" \
        -H "content-type: application/json" -H "authorization: Bearer $ACCESS_TOKEN" \
        "https://localhost:$MOCK_PORT/v1/projects/$PROJECT/messages:send" |
        grep -E "^finished in|^requests:|^status codes:|time for request:"
done
