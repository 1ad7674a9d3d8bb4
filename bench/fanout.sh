#!/usr/bin/env bash
# The fan-out against the client alone, round by round in turn: a fan-out of a SQLite channel through
# `herald serve` (the mock APNs inside herald-bench), then the same number of notifications through the APNs
# client alone (`herald-bench apns`, the release mock in its own process), with the same connections and
# streams. Each line gives the rate and the cores' worth of CPU the whole machine used, so a run that waited
# shows beside one that worked, and the CPU a notification of the server and of the client alone (less
# noisy than the rates on a VM whose speed drifts). With HERALD_BENCH_FANOUT_BACKEND=postgres the channel is on a
# throwaway PostgreSQL cluster (scripts/with-postgres.sh, on the same cores) and one instance fans it out; the
# server's CPU a notification then includes PostgreSQL's. Run through bench/run.sh fanout, or alone after a
# release build:
#   bash bench/fanout.sh                                  # SQLite, 100,000 devices, 2 × 500, 4 rounds, history on
#   HERALD_BENCH_FANOUT_HISTORY=false HERALD_BENCH_FANOUT_ROUNDS=6 bash bench/fanout.sh
#   HERALD_BENCH_FANOUT_BACKEND=postgres bash bench/fanout.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BACKEND=${HERALD_BENCH_FANOUT_BACKEND:-sqlite}
if [ "$BACKEND" = postgres ] && [ -z "${HERALD_TEST_POSTGRES_URL:-}" ]; then
    exec "$BENCH_ROOT/scripts/with-postgres.sh" bash "$BENCH_ROOT/bench/fanout.sh" "$@"
fi
cd "$BENCH_ROOT"

DEVICES=${HERALD_BENCH_FANOUT_DEVICES:-100000}
ROUNDS=${HERALD_BENCH_FANOUT_ROUNDS:-4}
HISTORY=${HERALD_BENCH_FANOUT_HISTORY:-true}
# Device ids: sequential (dev-000000001 … in key order, as the other benchmarks populate) or scattered (as
# apps' UUIDs are: a page's delivery history rows land all over the device index).
IDS=${HERALD_BENCH_FANOUT_IDS:-sequential}
STREAMS=${HERALD_BENCH_FANOUT_STREAMS:-500}
APNS_PORT=${HERALD_BENCH_APNS_PORT:-18197}
KEY=(--key-file fixtures/keys/AuthKey_TESTKEY001.p8 --key-id TESTKEY001 --team-id TESTTEAM01)
case $BACKEND in
    sqlite)
        db="$WORK/fanout-$DEVICES.sqlite"
        DATABASE="sqlite://$db"
        trap 'kill "${MOCK_PIDS[@]}" 2>/dev/null || true; remove_db "$db"' EXIT
        remove_db "$db" ;;
    postgres)
        fresh_pg herald_bench_fanout
        DATABASE=$(pg_url herald_bench_fanout)
        trap 'kill "${MOCK_PIDS[@]}" 2>/dev/null || true' EXIT ;;
    *) echo "HERALD_BENCH_FANOUT_BACKEND is sqlite or postgres, not '$BACKEND'" >&2; exit 2 ;;
esac

timeout 900 "$HERALD_BENCH" populate --database "$DATABASE" --devices "$DEVICES" --channels 1 \
    --expired 0 --expiring 0 --device-ids "$IDS" --app bench | head -1
start_mock apns-mock "$APNS_PORT" --no-control --no-record

echo "== the fan-out of $DEVICES devices on $BACKEND (history $HISTORY, device ids $IDS) and the client alone in turn, 2 × $STREAMS, $ROUNDS rounds =="
fan_sum=0 client_sum=0
for round in $(seq 1 "$ROUNDS"); do
    # Two fan-outs a round: the first opens the connections and warms the server; the second is timed.
    line=$(timeout 900 "$HERALD_BENCH" publish --database "$DATABASE" --herald "$HERALD" --fixtures fixtures \
        --app bench --channel channel-0 --rounds 2 --latency-samples 0 --history "$HISTORY" \
        --connections 2 --streams "$STREAMS" | grep '^round 2:')
    fan=$(echo "$line" | sed -n 's/.* = \([0-9]*\)\/s.*/\1/p')
    fan_machine=$(echo "$line" | sed -n 's/.*machine busy (cores) \([0-9.]*\).*/\1/p')
    # The server's cores, plus PostgreSQL's when the bench measured them.
    fan_cpu=$(echo "$line" | sed -n 's/.*server CPU (cores) \([0-9.]*\)\(; database CPU (cores) \([0-9.]*\)\)\{0,1\}.*/\1 \3/p' \
        | awk -v r="$fan" '{printf "%.1f", ($1 + $2) / r * 1e6}')
    out=$(timeout 300 "$HERALD_BENCH" apns --url "https://localhost:$APNS_PORT" "${KEY[@]}" --topic com.example.herald \
        --ca fixtures/tls/ca.crt --count "$DEVICES" --connections 2 --streams "$STREAMS")
    client=$(echo "$out" | sed -n 's/.*rate: \([0-9]*\).*/\1/p')
    client_machine=$(echo "$out" | sed -n 's/.*machine busy (cores) \([0-9.]*\).*/\1/p')
    client_cpu=$(echo "$out" | sed -n 's/.*client CPU: [0-9.]* s (\([0-9.]*\) µs.*/\1/p')
    fan_sum=$((fan_sum + fan)) client_sum=$((client_sum + client))
    echo "round $round: fan-out $fan/s (server $fan_cpu µs CPU a notification, machine busy $fan_machine cores), client alone $client/s ($client_cpu µs, machine busy $client_machine cores): $((100 * fan / client))%"
done
echo "mean: fan-out $((fan_sum / ROUNDS))/s, client alone $((client_sum / ROUNDS))/s ($((100 * fan_sum / client_sum))%)"
