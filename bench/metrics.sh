#!/usr/bin/env bash
# What the Prometheus metrics cost (issue 11): the same release binary with metrics.enabled true and
# false, alternating, in one run. (1) Registrations over HTTP (bench/register.lua, 64 connections):
# each request passes the request-metrics middleware and each group commit records its batch.
# (2) A fan-out to 100,000 devices against the mock: every APNs answer is counted by outcome and reason,
# timed, and moves the in-flight gauge.
#
# Environment: HERALD_BENCH_DURATION (default 10s), HERALD_BENCH_METRICS_ROUNDS (default 2),
# HERALD_BENCH_METRICS_DEVICES (default 100000), plus those of lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require wrk
trap stop_server EXIT

DURATION=${HERALD_BENCH_DURATION:-10s}
ROUNDS=${HERALD_BENCH_METRICS_ROUNDS:-2}
DEVICES=${HERALD_BENCH_METRICS_DEVICES:-100000}
DB="$WORK/metrics.sqlite"

echo "== metrics cost: registrations over HTTP (wrk -t2 -c64 -d$DURATION), metrics on and off alternately =="
for round in $(seq 1 "$ROUNDS"); do
    for enabled in true false; do
        remove_db "$DB"
        HERALD_METRICS_ENABLED=$enabled measure_registrations "round=$round metrics=$enabled" "$DB" 64 "$DURATION"
    done
done
remove_db "$DB"

echo "== metrics cost: fan-out to $DEVICES devices, 3 rounds each, metrics on and off alternately =="
db="$WORK/metrics-publish.sqlite"
remove_db "$db"
timeout 600 "$HERALD_BENCH" populate --database "sqlite://$db" --devices "$DEVICES" --channels 1 \
    --expired 0 --expiring 0 --app bench | head -1
for round in $(seq 1 "$ROUNDS"); do
    for enabled in true false; do
        echo "-- round $round, metrics.enabled $enabled"
        timeout 1800 "$HERALD_BENCH" publish --database "sqlite://$db" --herald "$HERALD" --fixtures fixtures \
            --app bench --channel channel-0 --rounds 3 --latency-samples 0 --metrics "$enabled"
    done
done
remove_db "$db"
