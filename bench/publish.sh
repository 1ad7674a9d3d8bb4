#!/usr/bin/env bash
# Publish and fan-out: the release herald binary on populated databases, the mock APNs over TLS
# inside herald-bench (records off). For each channel size: publish → first APNs request latency
# (200 publishes to a one-device channel), then three fan-outs of the whole channel, each timed
# until the mock has accepted every notification, with the server's resident memory sampled.
# Run through bench/run.sh (it builds first), or alone after a release build:
#   bash bench/publish.sh            # 10,000 and 100,000 devices
#   HERALD_BENCH_PUBLISH_SIZES="100000 1000000" bash bench/publish.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$BENCH_ROOT"

SIZES=${HERALD_BENCH_PUBLISH_SIZES:-"10000 100000"}
for size in $SIZES; do
    db="$WORK/publish-$size.sqlite"
    remove_db "$db"
    echo "== publish: channel of $size devices =="
    timeout 600 "$HERALD_BENCH" populate --database "sqlite://$db" --devices "$size" --channels 1 \
        --expired 0 --expiring 0 --app bench | head -1
    timeout 1800 "$HERALD_BENCH" publish --database "sqlite://$db" --herald "$HERALD" --fixtures fixtures \
        --app bench --channel channel-0 --rounds 3 --latency-samples 200
    remove_db "$db"
done
