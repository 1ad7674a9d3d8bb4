#!/usr/bin/env bash
# Mixed fan-out: what ANDROID devices cost a channel's fan-out. In one run, populates a channel of
# all-IOS devices and one of the same size with a share of ANDROID devices (FCM tokens), and fans out
# each three times with the same release herald binary and the same configuration: the mock APNs and
# the mock FCM both in herald-bench (TLS, records off), the app with an apns and an fcm block. Each
# round ends when APNs accepted + FCM accepted is the channel's size. Prints both rates and their ratio.
# Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/mixed.sh                                  # 100,000 devices, 30% ANDROID
#   HERALD_BENCH_MIXED_SIZE=10000 HERALD_BENCH_MIXED_ANDROID=50 bash bench/mixed.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"

SIZE=${HERALD_BENCH_MIXED_SIZE:-100000}
ANDROID=${HERALD_BENCH_MIXED_ANDROID:-30}
ROUNDS=${HERALD_BENCH_MIXED_ROUNDS:-3}

# fan_out LABEL ANDROID_PERCENT: populates a fresh channel-0 of $SIZE devices, fans out to it $ROUNDS
# times, prints the rounds and leaves the median rate in $WORK/mixed-LABEL.rate.
fan_out() {
    local label=$1 percent=$2 db="$WORK/mixed-$1.sqlite" log="$WORK/mixed-$1.log"
    remove_db "$db"
    echo "== $label: channel of $SIZE devices, $percent% ANDROID =="
    timeout 600 "$HERALD_BENCH" populate --database "sqlite://$db" --devices "$SIZE" --channels 1 \
        --expired 0 --expiring 0 --app bench --android-percent "$percent" | grep -E "^populated|ANDROID"
    timeout 1800 "$HERALD_BENCH" publish --database "sqlite://$db" --herald "$HERALD" --fixtures fixtures \
        --app bench --channel channel-0 --rounds "$ROUNDS" --latency-samples 0 --fcm | tee "$log"
    remove_db "$db"
    # The median of the rounds' rates ("… = 12345/s; …").
    sed -n 's/^round [0-9]*: .* = \([0-9]*\)\/s;.*/\1/p' "$log" | sort -n |
        awk '{r[NR] = $1} END {print (NR % 2) ? r[(NR + 1) / 2] : int((r[NR / 2] + r[NR / 2 + 1]) / 2)}' >"$WORK/mixed-$label.rate"
}

fan_out all-ios 0
fan_out mixed "$ANDROID"

ios=$(cat "$WORK/mixed-all-ios.rate")
mixed=$(cat "$WORK/mixed-mixed.rate")
echo "== mixed fan-out, $SIZE devices, median of $ROUNDS rounds =="
echo "all IOS:              $ios notifications/s"
echo "$ANDROID% ANDROID (FCM):   $mixed notifications/s"
awk -v i="$ios" -v m="$mixed" 'BEGIN {printf "mixed / all-IOS:      %.0f%% (target: at least 80%%)\n", 100 * m / i}'
