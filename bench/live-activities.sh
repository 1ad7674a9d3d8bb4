#!/usr/bin/env bash
# Issue 51, part 1: one Live Activity update to a channel of HERALD_BENCH_LA_DEVICES devices (default 1,000,000),
# each running one activity of the type, sent two ways in the same run against the mock APNs process
# (TLS, records off): per-token pushes (the channel not bound), then one broadcast (the channel bound to
# an APNs broadcast channel made through the mock's channel management host). For each: the time from the
# publish's answer to the message's status `published`, and the requests APNs received.
# Part 2: one Live Activity start to HERALD_BENCH_LA_START_DEVICES devices (default 100,000), each with a
# push-to-start token, the channel bound (so each start carries input-push-channel), against an ordinary
# alert publish to the same devices (the reference: the same fan-out without Live Activity tokens).
# HERALD_BENCH_LA_PARTS="update start" (default both) picks the parts.
# Run through bench/run.sh live-activities (it builds first), or alone after a release build:
#   bash bench/live-activities.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
require curl
require python3
DEVICES=${HERALD_BENCH_LA_DEVICES:-1000000}
START_DEVICES=${HERALD_BENCH_LA_START_DEVICES:-100000}
PARTS=${HERALD_BENCH_LA_PARTS:-update start}
DB="$WORK/live-activities.sqlite"
MOCK=18197 CONTROL=18198 MANAGE=18195
MOCK_PIDS=()
cleanup() { stop_server; for pid in "${MOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

API="http://$HOST:$PORT/bench/k-admin"
requests() { curl -s "http://127.0.0.1:$CONTROL/control/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])'; }

# cpu PID: the process's user + system CPU time so far, in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# publish LABEL PATH BODY: publishes one message, waits (10 minutes at most) until it is published, prints the figures
# (with the CPU time Herald and the mock APNs spent meanwhile).
publish() {
    local before id t0 status t1 herald_cpu mock_cpu
    before=$(requests)
    herald_cpu=$(cpu "$SERVER_PID")
    mock_cpu=$(cpu "${MOCK_PIDS[0]}")
    t0=$(date +%s%N)
    id=$(curl -s -X POST "$API/$2" -H 'Content-Type: application/json' -d "$3" | grep -o 'message:[0-9a-f-]*')
    for _ in $(seq 1 60000); do
        status=$(curl -s "$API/messaging/$id")
        case $status in *'"status":"published"'*|*'"status":"failed"'*) break ;; esac
        sleep 0.01
    done
    t1=$(date +%s%N)
    local sent
    sent=$(echo "$status" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["deliveries"]["sent"], d["deliveries"]["failed"])')
    local ticks
    ticks=$(getconf CLK_TCK)
    echo "$1: $sent (status, sent, failed) in $(( (t1 - t0) / 1000000 )) ms; APNs received $(( $(requests) - before )) requests;" \
        "CPU: Herald $(( ($(cpu "$SERVER_PID") - herald_cpu) * 1000 / ticks )) ms, mock APNs $(( ($(cpu "${MOCK_PIDS[0]}") - mock_cpu) * 1000 / ticks )) ms"
}
UPDATE='{"event":"update","attributesType":"MatchAttributes","contentState":{"home":1,"away":0}}'

# populate N SQL: N iOS devices in channel-0, then SQL run on the file (the Live Activity tokens).
populate() {
    remove_db "$DB"
    local started
    started=$(date +%s)
    timeout 1800 "$HERALD_BENCH" populate --database "sqlite://$DB" --devices "$1" --channels 1 --expired 0 --expiring 0 \
        --app bench | grep -v '…' | head -1
    python3 - "$DB" "$2" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time() * 1000)
db.execute(sys.argv[2].replace(":now", str(now)).replace(":expires", str(now + 12 * 3600 * 1000)))
db.commit()
print("tokens:", db.execute("SELECT (SELECT COUNT(*) FROM live_activities) + (SELECT COUNT(*) FROM activity_start_tokens)").fetchone()[0])
PY
    echo "populated in $(($(date +%s) - started)) s"
}

start_mock apns-mock "$MOCK" --control-port "$CONTROL" --manage-port "$MANAGE" --topic com.example.herald --no-record
BENCH_APP_PROVIDERS='"apns":{"environment":"custom","url":"https://localhost:'$MOCK'","caFile":"fixtures/tls/ca.crt",
 "manageUrl":"https://localhost:'$MANAGE'","topic":"com.example.herald","teamId":"TESTTEAM01","keyId":"TESTKEY001",
 "privateKeyFile":"fixtures/keys/AuthKey_TESTKEY001.p8"}'
export BENCH_APP_PROVIDERS

if [[ " $PARTS " == *" update "* ]]; then
    echo "== live activities: an update to $DEVICES devices, per token and by one broadcast ($(nproc) cores) =="
    # One running activity per device, its update token the device's own token (any hex does for the mock).
    populate "$DEVICES" "INSERT INTO live_activities (device_key, activity_id, attributes_type, token, started_at, updated_at, expires_at)
        SELECT id, 'activity-' || id, 'MatchAttributes', device_token, :now, :now, :expires FROM devices"
    start_server "$DB"
    publish "per token  " messaging/channel-0/live-activity "$UPDATE"
    curl -s -X POST "$API/live-activities/channels" -H 'Content-Type: application/json' -d '{"storagePolicy":0,"channel":"channel-0"}' >/dev/null
    publish "broadcast  " messaging/channel-0/live-activity "$UPDATE"
    publish "broadcast  " messaging/channel-0/live-activity "$UPDATE"
    stop_server
fi

if [[ " $PARTS " == *" start "* ]]; then
    echo "== live activities: a start to $START_DEVICES devices' push-to-start tokens, against an alert to the same devices =="
    populate "$START_DEVICES" "INSERT INTO activity_start_tokens (device_key, attributes_type, token, created_at, updated_at)
        SELECT id, 'MatchAttributes', device_token, :now, :now FROM devices"
    start_server "$DB"
    # Bound, so that each start carries input-push-channel as a real match's would.
    curl -s -X POST "$API/live-activities/channels" -H 'Content-Type: application/json' -d '{"storagePolicy":0,"channel":"channel-0"}' >/dev/null
    START='{"event":"start","attributesType":"MatchAttributes","attributes":{"home":"Lyon","away":"Nantes"},"contentState":{"home":0,"away":0},"alert":{"title":"Kick-off","body":"Lyon v Nantes"}}'
    for round in 1 2; do
        publish "start      " messaging/channel-0/live-activity "$START"
        publish "alert      " messaging/channel-0 '{"message":"Kick-off","headers":{"ios-alert-title":"Lyon v Nantes"}}'
    done
    stop_server
fi
remove_db "$DB"
