#!/usr/bin/env bash
# Issue 51: one Live Activity update to a channel of HERALD_BENCH_LA_DEVICES devices (default 1,000,000),
# each running one activity of the type, sent two ways in the same run against the mock APNs process
# (TLS, records off): per-token pushes (the channel not bound), then one broadcast (the channel bound to
# an APNs broadcast channel made through the mock's channel management host). For each: the time from the
# publish's answer to the message's status `published`, and the requests APNs received.
# Run through bench/run.sh live-activities (it builds first), or alone after a release build:
#   bash bench/live-activities.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
require curl
require python3
DEVICES=${HERALD_BENCH_LA_DEVICES:-1000000}
DB="$WORK/live-activities.sqlite"
MOCK=18197 CONTROL=18198 MANAGE=18195
MOCK_PIDS=()
cleanup() { stop_server; for pid in "${MOCK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "== live activities: an update to $DEVICES devices, per token and by one broadcast ($(nproc) cores) =="
remove_db "$DB"
started=$(date +%s)
timeout 1800 "$HERALD_BENCH" populate --database "sqlite://$DB" --devices "$DEVICES" --channels 1 --expired 0 --expiring 0 \
    --app bench | grep -v '…' | head -1
# One running activity per device, its update token the device's own token (any hex does for the mock).
python3 - "$DB" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time() * 1000)
db.execute("""INSERT INTO live_activities (device_key, activity_id, attributes_type, token, started_at, updated_at, expires_at)
              SELECT id, 'activity-' || id, 'MatchAttributes', device_token, ?, ?, ? FROM devices""", (now, now, now + 12 * 3600 * 1000))
db.commit()
print("activities:", db.execute("SELECT COUNT(*) FROM live_activities").fetchone()[0])
PY
echo "populated in $(($(date +%s) - started)) s"

start_mock apns-mock "$MOCK" --control-port "$CONTROL" --manage-port "$MANAGE" --topic com.example.herald --no-record
BENCH_APP_PROVIDERS='"apns":{"environment":"custom","url":"https://localhost:'$MOCK'","caFile":"fixtures/tls/ca.crt",
 "manageUrl":"https://localhost:'$MANAGE'","topic":"com.example.herald","teamId":"TESTTEAM01","keyId":"TESTKEY001",
 "privateKeyFile":"fixtures/keys/AuthKey_TESTKEY001.p8"}'
export BENCH_APP_PROVIDERS
start_server "$DB"
API="http://$HOST:$PORT/bench/k-admin"
requests() { curl -s "http://127.0.0.1:$CONTROL/control/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])'; }

# update LABEL: publishes one update, waits (10 minutes at most) until it is published, prints the figures.
update() {
    local before id t0 status t1
    before=$(requests)
    t0=$(date +%s%N)
    id=$(curl -s -X POST "$API/messaging/channel-0/live-activity" -H 'Content-Type: application/json' \
        -d '{"event":"update","attributesType":"MatchAttributes","contentState":{"home":1,"away":0}}' | grep -o 'message:[0-9a-f-]*')
    for _ in $(seq 1 60000); do
        status=$(curl -s "$API/messaging/$id")
        case $status in *'"status":"published"'*|*'"status":"failed"'*) break ;; esac
        sleep 0.01
    done
    t1=$(date +%s%N)
    local sent
    sent=$(echo "$status" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["deliveries"]["sent"], d["deliveries"]["failed"])')
    echo "$1: $sent (status, sent, failed) in $(( (t1 - t0) / 1000000 )) ms; APNs received $(( $(requests) - before )) requests"
}

update "per token  "
curl -s -X POST "$API/live-activities/channels" -H 'Content-Type: application/json' -d '{"storagePolicy":0,"channel":"channel-0"}' >/dev/null
update "broadcast  "
update "broadcast  "
remove_db "$DB"
