#!/usr/bin/env bash
# Issue 50: Android registrations per second over `/binary` (the Java/Android SDK's AMF call, the
# captured request with a new device id and token each time) beside the same registrations over REST
# (bench/register-android.lua: the same device fields, channels and expiration as JSON), in the same
# run, alternating, each on a fresh database and a fresh `herald serve`. Every binary answer is checked:
# `faults=` counts answers that were not an AcknowledgeMessage.
#
# Environment: HERALD_BENCH_CONNECTIONS (default "16 64"), HERALD_BENCH_DURATION (default 15s),
# HERALD_BENCH_ROUNDS (default 2), plus those of lib.sh (wrk runs 2 threads).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

CONNECTIONS=${HERALD_BENCH_CONNECTIONS:-"16 64"}
DURATION=${HERALD_BENCH_DURATION:-15s}
ROUNDS=${HERALD_BENCH_ROUNDS:-2}
DB="$WORK/binary.sqlite"
BINARY_URL="http://$HOST:$PORT/bench/k-client/binary"
export HERALD_BENCH_AMF_SAMPLE="$BENCH_ROOT/fixtures/amf/requests/registerDevice.amf"

echo "== Android registrations: /binary (AMF) beside REST (wrk -t2 -d$DURATION, keep-alive, synchronous=FULL) =="
for connections in $CONNECTIONS; do
    for round in $(seq 1 "$ROUNDS"); do
        remove_db "$DB"
        measure_registrations "rest connections=$connections round=$round" "$DB" "$connections" "$DURATION" \
            "$BENCH_ROOT/bench/register-android.lua" "$CLIENT_URL"
        remove_db "$DB"
        measure_registrations "binary connections=$connections round=$round" "$DB" "$connections" "$DURATION" \
            "$BENCH_ROOT/bench/binary-register.lua" "$BINARY_URL"
    done
done
remove_db "$DB"
