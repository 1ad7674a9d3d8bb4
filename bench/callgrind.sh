#!/usr/bin/env bash
# Instructions per notification and per registration under valgrind's callgrind: the noise-free figure
# beside the timings (issue 27). Each count is the difference between two runs of different lengths
# divided by the difference in length, so start-up, connecting and the warm-up cancel out:
#   1. herald-bench apns against plain C on libcurl (bench/curl-ceiling.c, two threads), 2 × 100 streams,
#      against the release apns-mock (outside valgrind);
#   2. herald-bench fcm against plain C, the same way, against the release fcm-mock;
#   3. herald-bench register (SQLRegistrationStore.register, no HTTP) on SQLite (SQLite's work included)
#      and on PostgreSQL (Herald's side only: the server is another process).
# Timings under valgrind mean nothing (it runs one thread at a time, about 50 times slower); the counts move
# by about 1% between runs, with how curl's rounds batch. valgrind 3.19 cannot read Swift 6.3's debug
# information, so the binaries are copied with it stripped (symbols kept). Run alone after a release build:
#   bash bench/callgrind.sh              # about 6 minutes on 2 cores
# Environment: HERALD_BENCH_CALLGRIND_SHORT / _LONG (notifications, default 10000 / 30000), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/callgrind.sh" "$@"
fi
require valgrind
require psql
cd "$BENCH_ROOT"

SHORT=${HERALD_BENCH_CALLGRIND_SHORT:-10000}
LONG=${HERALD_BENCH_CALLGRIND_LONG:-30000}
OUT="$WORK/callgrind"
mkdir -p "$OUT"
BENCH="$OUT/herald-bench"
objcopy --strip-debug "$HERALD_BENCH" "$BENCH"
CEILING=$(curl_ceiling)
KEY=(--key-file fixtures/keys/AuthKey_TESTKEY001.p8 --key-id TESTKEY001 --team-id TESTTEAM01)
APNS_PORT=${HERALD_BENCH_APNS_PORT:-18197}
FCM_PORT=${HERALD_BENCH_FCM_PORT:-18199}
PAYLOAD="$OUT/apns-payload.json"
printf '%s' '{"aps":{"alert":{"title":"Herald","body":"benchmark"}}}' >"$PAYLOAD"

# counted NAME COMMAND…: runs COMMAND under callgrind and prints the instructions it executed.
counted() {
    local name=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.out" "$@" >"$OUT/$name.log" 2>&1 \
        || { tail -5 "$OUT/$name.log"; return 1; }
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$OUT/$name.log"
}

# per NAME UNIT SHORT_COUNT LONG_COUNT: instructions per unit between the two runs.
per() { echo "$1: $(((${4} - ${3}) / (LONG - SHORT))) instructions per $2"; }

SERVERS=()
trap 'for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT
"$SCRATCH/release/apns-mock" --port "$APNS_PORT" --no-control --no-record >"$OUT/apns-mock.log" 2>&1 &
SERVERS+=($!)
ACCOUNT="$OUT/fcm-service-account.json"
sed "s#\"token_uri\": *\"[^\"]*\"#\"token_uri\": \"https://localhost:$FCM_PORT/token\"#" fixtures/fcm/service-account.json >"$ACCOUNT"
"$SCRATCH/release/fcm-mock" --port "$FCM_PORT" --no-control --no-record --service-account fixtures/fcm/service-account.json \
    >"$OUT/fcm-mock.log" 2>&1 &
SERVERS+=($!)
for _ in $(seq 1 100); do grep -q listening "$OUT/apns-mock.log" && grep -q listening "$OUT/fcm-mock.log" && break; sleep 0.1; done

echo "== instructions under callgrind ($LONG − $SHORT of each, 2 connections × 100 streams) =="
TOKEN=$(printf 'ab%.0s' $(seq 1 32))
JWT=$("$HERALD_BENCH" apns-token "${KEY[@]}")
apns() { counted "apns-$1" "$BENCH" apns --url "https://localhost:$APNS_PORT" --ca fixtures/tls/ca.crt "${KEY[@]}" \
    --topic com.example.herald --count "$1" --warmup 200 --connections 2 --streams 100 --payload "$PAYLOAD"; }
apns_c() { counted "apns-c-$1" "$CEILING" --url "https://localhost:$APNS_PORT/3/device/$TOKEN" --ca fixtures/tls/ca.crt \
    --count "$1" --connections 2 --streams 100 --threads 2 --body "$PAYLOAD" -H "apns-topic: com.example.herald" \
    -H "apns-push-type: alert" -H "authorization: bearer $JWT" -H "content-type: application/json"; }
herald=$(per "APNs, herald-bench apns" notification "$(apns "$SHORT")" "$(apns "$LONG")")
plain=$(per "APNs, plain C (curl-ceiling, 2 threads)" request "$(apns_c "$SHORT")" "$(apns_c "$LONG")")
echo "$herald"
echo "$plain"

ACCESS=$("$HERALD_BENCH" fcm-token --service-account "$ACCOUNT" --ca fixtures/tls/ca.crt)
PROJECT=$(sed -n 's/.*"project_id": *"\([^"]*\)".*/\1/p' "$ACCOUNT")
BODY="$OUT/fcm-body.json"
printf '{"message":{"token":"%s","notification":{"title":"Herald","body":"benchmark"}}}' \
    "h2load-bench-device-01:APA91b$(printf 'x%.0s' $(seq 1 134))" >"$BODY"
fcm() { counted "fcm-$1" "$BENCH" fcm --url "https://localhost:$FCM_PORT" --ca fixtures/tls/ca.crt \
    --service-account "$ACCOUNT" --count "$1" --warmup 200 --connections 2 --streams 100; }
fcm_c() { counted "fcm-c-$1" "$CEILING" --url "https://localhost:$FCM_PORT/v1/projects/$PROJECT/messages:send" \
    --ca fixtures/tls/ca.crt --count "$1" --connections 2 --streams 100 --threads 2 --body "$BODY" \
    -H "content-type: application/json" -H "authorization: Bearer $ACCESS"; }
echo "$(per "FCM, herald-bench fcm" message "$(fcm "$SHORT")" "$(fcm "$LONG")")"
echo "$(per "FCM, plain C (curl-ceiling, 2 threads)" request "$(fcm_c "$SHORT")" "$(fcm_c "$LONG")")"

# Registrations: a third of the notifications' counts (each costs about twice as much).
RSHORT=$((SHORT / 2))
RLONG=$((LONG / 2))
register() {
    local database=$2
    counted "register-$1-$3" "$BENCH" register --database "$database" --count "$3"
}
sqlite_short=$(remove_db "$OUT/short.sqlite"; register sqlite "sqlite://$OUT/short.sqlite" "$RSHORT")
sqlite_long=$(remove_db "$OUT/long.sqlite"; register sqlite "sqlite://$OUT/long.sqlite" "$RLONG")
remove_db "$OUT/short.sqlite"
remove_db "$OUT/long.sqlite"
LONG=$RLONG SHORT=$RSHORT per "registrations, SQLite (its work included)" registration "$sqlite_short" "$sqlite_long"
pg() {
    psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS herald_bench_cg WITH (FORCE)" -c "CREATE DATABASE herald_bench_cg" >/dev/null
    register postgres "$(pg_url herald_bench_cg)" "$1"
}
pg_short=$(pg "$RSHORT")
pg_long=$(pg "$RLONG")
psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS herald_bench_cg WITH (FORCE)" >/dev/null
LONG=$RLONG SHORT=$RSHORT per "registrations, PostgreSQL (Herald's side)" registration "$pg_short" "$pg_long"
echo "callgrind's files are in $OUT (callgrind_annotate FILE.out lists the functions)"
