#!/usr/bin/env bash
# What the delivery statistics cost a fan-out (issue 53: at most 2%): a fan-out of a 100,000-device channel
# through this build and through the build before them, round by round in turn (the order swapped every
# round, as this VM's speed drifts within minutes), each build on a database of its own (the build before
# refuses a schema newer than it knows) populated alike. Each line gives the rate and the server's CPU a
# notification (with PostgreSQL's on that backend). Run after a release build of both:
#   git worktree add /tmp/herald-before 4c4fe80 && (cd /tmp/herald-before && swift build -c release)
#   HERALD_BENCH_BASELINE_DIR=/tmp/herald-before/.build/release bash bench/stats-cost.sh
#   HERALD_BENCH_BASELINE_DIR=… HERALD_BENCH_STATS_BACKEND=postgres bash bench/stats-cost.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BACKEND=${HERALD_BENCH_STATS_BACKEND:-sqlite}
if [ "$BACKEND" = postgres ] && [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/stats-cost.sh" "$@"
fi
cd "$BENCH_ROOT"

BASE=${HERALD_BENCH_BASELINE_DIR:?set HERALD_BENCH_BASELINE_DIR to the build before (a directory with its herald and herald-bench)}
DEVICES=${HERALD_BENCH_STATS_DEVICES:-100000}
ROUNDS=${HERALD_BENCH_STATS_ROUNDS:-6}
STREAMS=${HERALD_BENCH_STATS_STREAMS:-500}
for binary in "$BASE/herald" "$BASE/herald-bench" "$HERALD" "$HERALD_BENCH"; do
    [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }
done

# database SIDE: the URL of SIDE's database (before, after), made empty.
database() {
    case $BACKEND in
        sqlite) remove_db "$WORK/stats-$1.sqlite"; echo "sqlite://$WORK/stats-$1.sqlite" ;;
        postgres) fresh_pg "herald_bench_stats_$1" >/dev/null; pg_url "herald_bench_stats_$1" ;;
        *) echo "HERALD_BENCH_STATS_BACKEND is sqlite or postgres, not '$BACKEND'" >&2; exit 2 ;;
    esac
}
declare -A DB HERALD_OF BENCH_OF
HERALD_OF[before]="$BASE/herald" BENCH_OF[before]="$BASE/herald-bench"
HERALD_OF[after]="$HERALD" BENCH_OF[after]="$HERALD_BENCH"
for side in before after; do
    DB[$side]=$(database "$side")
    timeout 900 "${BENCH_OF[$side]}" populate --database "${DB[$side]}" --devices "$DEVICES" --channels 1 \
        --expired 0 --expiring 0 --app bench | tail -1
done
if [ "$BACKEND" = sqlite ]; then trap 'remove_db "$WORK/stats-before.sqlite"; remove_db "$WORK/stats-after.sqlite"' EXIT; fi

echo "== a fan-out of $DEVICES devices on $BACKEND, the build before the statistics ($BASE) and this one in turn, 2 × $STREAMS, $ROUNDS rounds =="
declare -A RATE CPU
RATE[before]=0 RATE[after]=0 CPU[before]=0 CPU[after]=0
for round in $(seq 1 "$ROUNDS"); do
    order="before after"
    [ $((round % 2)) -eq 0 ] && order="after before"
    for side in $order; do
        # Two fan-outs a run: the first opens the connections and warms the server; the second is timed.
        line=$(timeout 900 "${BENCH_OF[$side]}" publish --database "${DB[$side]}" --herald "${HERALD_OF[$side]}" --fixtures fixtures \
            --app bench --channel channel-0 --rounds 2 --latency-samples 0 --connections 2 --streams "$STREAMS" | grep '^round 2:')
        rate=$(echo "$line" | sed -n 's/.* = \([0-9]*\)\/s.*/\1/p')
        cpu=$(echo "$line" | sed -n 's/.*server CPU (cores) \([0-9.]*\)\(; database CPU (cores) \([0-9.]*\)\)\{0,1\}.*/\1 \3/p' \
            | awk -v r="$rate" '{printf "%.1f", ($1 + $2) / r * 1e6}')
        machine=$(echo "$line" | sed -n 's/.*machine busy (cores) \([0-9.]*\).*/\1/p')
        RATE[$side]=$((RATE[$side] + rate))
        CPU[$side]=$(awk -v a="${CPU[$side]}" -v b="$cpu" 'BEGIN {printf "%.1f", a + b}')
        echo "round $round, $side: $rate/s, $cpu µs CPU a notification, machine busy $machine cores"
    done
done
awk -v rb="${RATE[before]}" -v ra="${RATE[after]}" -v cb="${CPU[before]}" -v ca="${CPU[after]}" -v n="$ROUNDS" 'BEGIN {
    printf "mean: before %d/s (%.1f µs a notification), with the statistics %d/s (%.1f µs): time %+.1f%%, CPU %+.1f%%\n",
        rb / n, cb / n, ra / n, ca / n, (rb / ra - 1) * 100, (ca / cb - 1) * 100 }'
