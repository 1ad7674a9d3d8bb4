#!/usr/bin/env bash
# The APNs and FCM clients against plain C on libcurl (bench/curl-ceiling.c, a thread per connection),
# round by round in turn, so both meet the same machine: this VM's speed drifts by 15–25% within minutes,
# which a run of one after the other (apns.sh, fcm.sh) takes for a difference between them. Each round
# prints both rates and their ratio; the end, the means. Run through bench/run.sh alternate, or alone after
# a release build:
#   bash bench/alternate.sh                       # APNs and FCM, 2 × 100 and 2 × 500, 4 rounds each
#   HERALD_BENCH_ALTERNATE="fcm:100" HERALD_BENCH_ALTERNATE_ROUNDS=6 bash bench/alternate.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"

CASES=${HERALD_BENCH_ALTERNATE:-"apns:100 apns:500 fcm:100 fcm:500"}
ROUNDS=${HERALD_BENCH_ALTERNATE_ROUNDS:-4}
COUNT=${HERALD_BENCH_ALTERNATE_COUNT:-150000}
APNS_PORT=${HERALD_BENCH_APNS_PORT:-18197}
FCM_PORT=${HERALD_BENCH_FCM_PORT:-18199}
CA=fixtures/tls/ca.crt
KEY=(--key-file fixtures/keys/AuthKey_TESTKEY001.p8 --key-id TESTKEY001 --team-id TESTTEAM01)
CEILING=$(curl_ceiling)
trap 'kill "${MOCK_PIDS[@]}" 2>/dev/null || true' EXIT

# The same requests as apns.sh and fcm.sh send.
APNS_PAYLOAD="$WORK/apns-payload.json"
printf '%s' '{"aps":{"alert":{"title":"Herald","body":"benchmark"}}}' >"$APNS_PAYLOAD"
APNS_TOKEN=$(printf 'ab%.0s' $(seq 1 32))
FCM_ACCOUNT="$WORK/fcm-service-account.json"
sed "s#\"token_uri\": *\"[^\"]*\"#\"token_uri\": \"https://localhost:$FCM_PORT/token\"#" \
    fixtures/fcm/service-account.json >"$FCM_ACCOUNT"
FCM_PROJECT=$(sed -n 's/.*"project_id": *"\([^"]*\)".*/\1/p' "$FCM_ACCOUNT")
FCM_BODY="$WORK/fcm-body.json"
printf '{"message":{"token":"%s","notification":{"title":"Herald","body":"benchmark"}}}' \
    "h2load-bench-device-01:APA91b$(printf 'x%.0s' $(seq 1 134))" >"$FCM_BODY"

start_mock apns-mock "$APNS_PORT" --no-control --no-record
start_mock fcm-mock "$FCM_PORT" --no-control --no-record --service-account fixtures/fcm/service-account.json
JWT=$("$HERALD_BENCH" apns-token "${KEY[@]}")
ACCESS_TOKEN=$(timeout 30 "$HERALD_BENCH" fcm-token --service-account "$FCM_ACCOUNT" --ca "$CA")

# herald_rate SERVICE STREAMS / c_rate SERVICE STREAMS: one round's notifications a second.
herald_rate() {
    local common=(--ca "$CA" --count "$COUNT" --connections 2 --streams "$2")
    if [ "$1" = apns ]; then
        timeout 300 "$HERALD_BENCH" apns --url "https://localhost:$APNS_PORT" "${KEY[@]}" --topic com.example.herald \
            --payload "$APNS_PAYLOAD" "${common[@]}"
    else
        timeout 300 "$HERALD_BENCH" fcm --url "https://localhost:$FCM_PORT" --service-account "$FCM_ACCOUNT" "${common[@]}"
    fi | sed -n 's/.*rate: \([0-9]*\).*/\1/p'
}
c_rate() {
    local common=(--ca "$CA" --count "$COUNT" --connections 2 --streams "$2" --threads 2)
    if [ "$1" = apns ]; then
        timeout 300 "$CEILING" --url "https://localhost:$APNS_PORT/3/device/$APNS_TOKEN" --body "$APNS_PAYLOAD" \
            "${common[@]}" -H "apns-topic: com.example.herald" -H "apns-push-type: alert" \
            -H "authorization: bearer $JWT" -H "content-type: application/json"
    else
        timeout 300 "$CEILING" --url "https://localhost:$FCM_PORT/v1/projects/$FCM_PROJECT/messages:send" \
            --body "$FCM_BODY" "${common[@]}" -H "content-type: application/json" \
            -H "authorization: Bearer $ACCESS_TOKEN"
    fi | sed -n 's/.* = \([0-9]*\)\/s.*/\1/p'
}

echo "== the clients and plain C on libcurl in turn, $COUNT notifications a round, $ROUNDS rounds, 2 connections =="
for case in $CASES; do
    service=${case%%:*} streams=${case##*:}
    herald_sum=0 c_sum=0
    for round in $(seq 1 "$ROUNDS"); do
        h=$(herald_rate "$service" "$streams")
        c=$(c_rate "$service" "$streams")
        herald_sum=$((herald_sum + h)) c_sum=$((c_sum + c))
        echo "$service 2 × $streams round $round: Herald $h/s, C $c/s ($((100 * h / c))%)"
    done
    echo "$service 2 × $streams mean: Herald $((herald_sum / ROUNDS))/s, C $((c_sum / ROUNDS))/s ($((100 * herald_sum / c_sum))%)"
done
