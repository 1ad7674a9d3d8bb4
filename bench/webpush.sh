#!/usr/bin/env bash
# Web Push client throughput: herald-bench webpush, then h2load replaying one ready request (encrypted
# once, VAPID-signed once) with the same connections and streams, both against the release webpush-mock
# over TLS on loopback (records off). The mock decrypts every body, as a browser would, in both runs: the
# difference is the client's work, which for Web Push includes a key agreement per notification
# (RFC 8291: a fresh P-256 key pair and salt per message and recipient). A second pair of runs has the
# mock skip decryption (--no-decrypt), so the client's own ceiling shows.
# Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/webpush.sh
#   HERALD_BENCH_WEBPUSH_COUNT=20000 bash bench/webpush.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"
require h2load

MOCK="$SCRATCH/release/webpush-mock"
MOCK_PORT=${HERALD_BENCH_WEBPUSH_PORT:-18299}
COUNT=${HERALD_BENCH_WEBPUSH_COUNT:-100000}
CA=fixtures/tls/ca.crt
URL="https://127.0.0.1:$MOCK_PORT"
MOCK_PID=""
trap '[ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null || true' EXIT

restart_mock() {
    [ -n "$MOCK_PID" ] && { kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; }
    "$MOCK" serve --port "$MOCK_PORT" --no-control --no-record "$@" >"$WORK/webpush-mock.log" 2>&1 &
    MOCK_PID=$!
    for _ in $(seq 1 100); do grep -q "listening" "$WORK/webpush-mock.log" && return 0; sleep 0.1; done
    echo "webpush-mock did not start" >&2; cat "$WORK/webpush-mock.log" >&2; exit 1
}

REQUEST="$WORK/webpush-request"
mkdir -p "$REQUEST"
timeout 30 "$HERALD_BENCH" webpush --url "$URL" --ca "$CA" --write-request "$REQUEST"

for mode in decrypt no-decrypt; do
    if [ "$mode" = decrypt ]; then restart_mock; else restart_mock --no-decrypt; fi
    echo "== Web Push: herald-bench webpush vs h2load, $COUNT notifications, TLS, mock ($mode) on the same machine =="
    for streams in 100; do
        echo "-- 2 connections × $streams streams: herald-bench webpush (1,000 subscriptions in turn)"
        timeout 300 "$HERALD_BENCH" webpush --url "$URL" --ca "$CA" --count "$COUNT" --connections 2 --streams "$streams"
        echo "-- 2 connections × $streams streams: h2load, one request encrypted once (the machine's ceiling for this mock)"
        timeout 300 h2load -n "$COUNT" -c 2 -m "$streams" -d "$REQUEST/body.bin" \
            -H "authorization: $(cat "$REQUEST/authorization.txt")" -H "ttl: 2419200" -H "content-encoding: aes128gcm" \
            -H "content-type: application/octet-stream" "$(cat "$REQUEST/url.txt")" |
            grep -E "^finished in|^requests:|^status codes:|time for request:"
    done
done

echo "== Web Push through the whole broker: herald-bench webpush-publish, a channel of 50,000 WEB devices, mock decrypting =="
kill "$MOCK_PID" 2>/dev/null || true
MOCK_PID=""
timeout 600 "$HERALD_BENCH" webpush-publish --herald "$HERALD" --devices "${HERALD_BENCH_WEBPUSH_DEVICES:-50000}" --rounds 3
