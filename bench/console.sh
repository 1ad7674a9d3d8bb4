#!/usr/bin/env bash
# Issue 25: the console's Devices and Messages pages with 1,000,000 devices and 100,000 messages must
# answer within 100 ms at p99; issue 53: the Overview too, with 7 days of delivery statistics (populate
# --stats-days 7: minutes for 48 hours, three services, four shards each). Populates a SQLite database (herald-bench populate --metadata true --messages),
# starts `herald serve` on it, logs in to the console for a session cookie, then measures each page with
# wrk (4 connections, 10 s, --latency) next to the JSON API route that reads the same rows (the
# reference: the page's cost over the store's). Pages: the first page, a page deep in (a cursor half way),
# filtered and searched pages; the same on PostgreSQL (a throwaway cluster) with HERALD_BENCH_CONSOLE_POSTGRES=1.
#
# Run through bench/run.sh console (it builds first), or alone after a release build:
#   bash bench/console.sh
# Environment: HERALD_BENCH_CONSOLE_DEVICES (default 1000000), HERALD_BENCH_CONSOLE_MESSAGES (default 100000),
# HERALD_BENCH_CONSOLE_SECONDS (default 10), and lib.sh's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require() { command -v "$1" >/dev/null || { echo "console bench: needs $1" >&2; exit 2; }; }
require wrk
DEVICES=${HERALD_BENCH_CONSOLE_DEVICES:-1000000}
MESSAGES=${HERALD_BENCH_CONSOLE_MESSAGES:-100000}
SECONDS_EACH=${HERALD_BENCH_CONSOLE_SECONDS:-10}
trap stop_server EXIT
# APNs and FCM settings (the test-only fixture keys; nothing is sent), so Send's count takes every platform.
export BENCH_APP_PROVIDERS="\"apns\":{\"environment\":\"development\",\"topic\":\"com.example.bench\",\"teamId\":\"TESTTEAM01\",\"keyId\":\"TESTKEY001\",\"privateKeyFile\":\"$BENCH_ROOT/fixtures/keys/AuthKey_TESTKEY001.p8\"},\"fcm\":{\"serviceAccountFile\":\"$BENCH_ROOT/fixtures/fcm/service-account.json\"}"

# measure NAME PATH [COOKIE]: wrk's p50/p99/max and requests/s for one path.
measure() {
    local name=$1 path=$2 cookie=${3:-}
    local args=(-t1 -c4 -d"${SECONDS_EACH}s" --latency)
    [ -n "$cookie" ] && args+=(-H "Cookie: herald_console=$cookie")
    local out status
    status=$(curl -s -o /dev/null -w '%{http_code}' ${cookie:+-H "Cookie: herald_console=$cookie"} "http://$HOST:$PORT$path")
    [ "$status" = 200 ] || { echo "console bench: $path answered $status" >&2; exit 1; }
    out=$(wrk "${args[@]}" "http://$HOST:$PORT$path")
    printf '%-34s %8s req/s  p50 %8s  p99 %8s  max %8s\n' "$name" \
        "$(echo "$out" | awk '/Requests\/sec/ {print int($2)}')" \
        "$(echo "$out" | awk '$1=="50%" {print $2}')" "$(echo "$out" | awk '$1=="99%" {print $2}')" \
        "$(echo "$out" | awk '$1=="Latency" && NF>3 {print $4}')"
}

# once NAME PATH COOKIE [FORM]: one request's time (a GET, or a POST of FORM), for what is cached after it.
once() {
    local name=$1 path=$2 cookie=$3 form=${4:-}
    local out
    if [ -n "$form" ]; then
        out=$(curl -s -o /tmp/console-bench-once.html -w '%{http_code} %{time_total}' -H "Cookie: herald_console=$cookie" \
            -H "Origin: http://$HOST:$PORT" --data "$form" "http://$HOST:$PORT$path")
    else
        out=$(curl -s -o /tmp/console-bench-once.html -w '%{http_code} %{time_total}' -H "Cookie: herald_console=$cookie" "http://$HOST:$PORT$path")
    fi
    [ "${out%% *}" = 200 ] || { echo "console bench: $path answered ${out%% *}" >&2; exit 1; }
    printf '%-34s one request: %6.1f ms\n' "$name" "$(awk -v t="${out#* }" 'BEGIN { print t * 1000 }')"
}

run_on() {
    local db=$1
    start_server "$db"
    local cookie
    cookie=$(curl -s -i -X POST "http://$HOST:$PORT/console/login" -d "app=bench&key=k-admin" \
        | awk -F'[=;]' 'tolower($1)=="set-cookie: herald_console" {print $2}')
    [ -n "$cookie" ] || { echo "console bench: login failed" >&2; exit 1; }
    # A messages cursor half way down the history, through the API's own pages.
    local cursor="" half=$((MESSAGES / 2 / 1000))
    for _ in $(seq 1 "$half"); do
        cursor=$(curl -s "http://$HOST:$PORT/bench/k-admin/messaging/messages?limit=1000${cursor:+&cursor=$cursor}" \
            | python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.load(sys.stdin)["nextCursor"] or "", safe=""))')
    done
    local middle=$((DEVICES / 2))
    measure "Devices page 1" "/console/devices" "$cookie"
    measure "  API GET /devices?limit=50" "/bench/k-admin/devices?limit=50"
    measure "Devices page at $middle" "/console/devices?cursor=$middle" "$cookie"
    measure "  API the same" "/bench/k-admin/devices?limit=50&cursor=$middle"
    measure "Devices os=ANDROID" "/console/devices?os=ANDROID" "$cookie"
    measure "Devices appVersion=3.1" "/console/devices?appVersion=3.1" "$cookie"
    measure "Devices search q=phone 77" "/console/devices?q=phone+77" "$cookie"
    measure "Devices one device" "/console/devices/dev-000500000" "$cookie"
    measure "Messages page 1" "/console/messages" "$cookie"
    measure "  API GET /messaging/messages" "/bench/k-admin/messaging/messages?limit=50"
    measure "Messages half way" "/console/messages?cursor=$cursor" "$cookie"
    measure "  API the same" "/bench/k-admin/messaging/messages?limit=50&cursor=$cursor"
    measure "Messages status=failed" "/console/messages?status=failed" "$cookie"
    measure "Messages channel=channel-2" "/console/messages?channel=channel-2" "$cookie"
    measure "Messages status=scheduled" "/console/messages?status=scheduled" "$cookie"
    # The Overview and Channels count by platform once a minute per app (a pass over the devices or the
    # channels' registrations): the first request pays it, the rest read the cache.
    once "Overview, first (counts devices)" "/console" "$cookie"
    measure "Overview, cached counts" "/console" "$cookie"
    # Issue 53: the delivery chart over 7 days of statistics (populate --stats-days 7): the last hour by
    # minute, read each time; 7 days by hour, kept a minute (its first request pays the sum).
    once "Overview 7 days, first (sums 48 h)" "/console?range=7d" "$cookie"
    measure "Overview 7 days, kept a minute" "/console?range=7d" "$cookie"
    measure "  API GET /admin/stats (hour)" "/bench/k-admin/admin/stats?step=hour"
    measure "  API GET /admin/stats (minute)" "/bench/k-admin/admin/stats"
    once "Channels, first (by platform)" "/console/channels" "$cookie"
    measure "Channels, cached counts" "/console/channels" "$cookie"
    # Send's recipient count: exact within a second, else an estimate (what the page says is shown).
    local csrf
    csrf=$(curl -s -H "Cookie: herald_console=$cookie" "http://$HOST:$PORT/console/send" | sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' | head -1)
    once "Send: count channel-1" "/console/send" "$cookie" "csrf=$csrf&intent=count&message=x&channels=channel-1"
    echo "    $(grep -o 'Recipients now:.*</p>' /tmp/console-bench-once.html | sed 's/<[^>]*>//g')"
    once "Send: count channel-1, Android" "/console/send" "$cookie" "csrf=$csrf&intent=count&message=x&channels=channel-1&for-android=on"
    echo "    $(grep -o 'Recipients now:.*</p>' /tmp/console-bench-once.html | sed 's/<[^>]*>//g')"
    once "Send: count all four channels" "/console/send" "$cookie" "csrf=$csrf&intent=count&message=x&channels=channel-0,channel-1,channel-2,channel-3"
    echo "    $(grep -o 'Recipients now:.*</p>' /tmp/console-bench-once.html | sed 's/<[^>]*>//g')"
    once "Send: count segment appVersion>=2.5" "/console/send" "$cookie" "csrf=$csrf&intent=count&message=x&channels=channel-1&appVersionAtLeast=2.5"
    echo "    $(grep -o 'Recipients now:.*</p>' /tmp/console-bench-once.html | sed 's/<[^>]*>//g')"
    stop_server
}

echo "== console pages: $DEVICES devices (with metadata, 30% ANDROID), $MESSAGES messages, wrk -c4 ${SECONDS_EACH}s, $(nproc) cores"
remove_db "$WORK/console.sqlite"
"$HERALD_BENCH" populate --database "sqlite://$WORK/console.sqlite" --devices "$DEVICES" --channels 4 --expired 0 --expiring 0 \
    --app bench --metadata true --android-percent 30 --messages "$MESSAGES" --stats-days 7
echo "-- SQLite --"
run_on "$WORK/console.sqlite"
remove_db "$WORK/console.sqlite"
if [ "${HERALD_BENCH_CONSOLE_POSTGRES:-0}" = 1 ]; then
    if [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
        echo "console bench: HERALD_BENCH_CONSOLE_POSTGRES=1 needs scripts/with-postgres.sh around it" >&2; exit 2
    fi
    url="${HERALD_TEST_POSTGRES_URL%/*}/herald_bench_console?sslmode=disable"
    psql "$HERALD_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS herald_bench_console WITH (FORCE)" -c "CREATE DATABASE herald_bench_console"
    "$HERALD_BENCH" populate --database "$url" --devices "$DEVICES" --channels 4 --expired 0 --expiring 0 \
        --app bench --metadata true --android-percent 30 --messages "$MESSAGES" --stats-days 7
    psql "$url" -qc "VACUUM ANALYZE" >/dev/null
    echo "-- PostgreSQL --"
    run_on "$url"
fi
