#!/usr/bin/env bash
# Every row of issue 27 (throughput) in one run, in the order BENCHMARKS.md's section 33 gives them: each step
# is one of the other bench/ scripts with the settings that section used. Run through bench/run.sh (it builds
# first; 38 minutes in run 33 on 2 cores), or alone after a release build:
#   bash bench/run.sh issue27
# PostgreSQL steps start their own throwaway cluster (scripts/with-postgres.sh); the mocks run on the same cores.
set -euo pipefail
cd "$(dirname "$0")/.."

step() {
    echo
    echo "#### issue 27: $1 ($(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg))"
}

step "the machine"
bash bench/machine.sh

step "the APNs and FCM clients and plain C on libcurl in turn (2 × 100, 2 × 500)"
bash bench/alternate.sh

step "the clients beside plain C and h2load, one run each"
bash bench/apns.sh
bash bench/fcm.sh

step "Web Push on the shared layer"
bash bench/webpush.sh

step "the fan-out against the client alone: SQLite, device ids in order"
bash bench/fanout.sh

step "the fan-out against the client alone: SQLite, scattered device ids (as apps' UUIDs are)"
HERALD_BENCH_FANOUT_IDS=scattered bash bench/fanout.sh

step "the same with the delivery history off (the gap's explanation)"
HERALD_BENCH_FANOUT_IDS=scattered HERALD_BENCH_FANOUT_HISTORY=false HERALD_BENCH_FANOUT_ROUNDS=2 bash bench/fanout.sh

step "the fan-out against the client alone: PostgreSQL, one instance, scattered device ids"
HERALD_BENCH_FANOUT_BACKEND=postgres HERALD_BENCH_FANOUT_IDS=scattered bash bench/fanout.sh

step "PostgreSQL beside SQLite: registrations in pairs, publish latency, one and two instances fanning out 100,000"
HERALD_BENCH_PG_REGISTRATION_ROUNDS=3 HERALD_BENCH_DURATION=10s bash bench/postgres.sh

step "publish → first APNs request, one and two instances on PostgreSQL"
bash bench/latency.sh

step "a 1,000,000-device channel: SQLite, PostgreSQL with one and two instances"
HERALD_BENCH_SCALE_SIZES=1000000 HERALD_BENCH_SCALE_ROUNDS=2 bash bench/scale.sh

step "10,000,000 registrations on PostgreSQL and SQLite"
HERALD_BENCH_DURATION=10s bash bench/large.sh

step "instructions a notification and a registration (callgrind)"
bash bench/callgrind.sh

step "done"
