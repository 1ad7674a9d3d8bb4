#!/usr/bin/env bash
# Builds Herald in release mode and runs every benchmark end to end (about 11 minutes on 2 cores,
# plus the build). Prints the figures and keeps a copy in $HERALD_BENCH_WORK/results.txt
# (default /tmp/herald-bench). Loopback only; every step is bounded in time.
#
#   bench/run.sh                 # build, then machine, registrations, store, sweep, memory, apns, fcm, webpush, devicecheck, publish, mixed, postgres, registry, metrics
#   bench/run.sh sweep memory    # build, then only the named parts
#   bench/run.sh callgrind       # instruction counts per notification and registration (not in the default list: ~7 min)
#   bench/run.sh alternate       # the clients and plain C round by round in turn (not in the default list: ~12 min)
#   bench/run.sh fanout          # the fan-out and the client alone in turn (not in the default list: ~5 min)
#   bench/run.sh latency pg-history sweep-history   # publish latency in turn with a baseline, the history's cost
#                                # in PostgreSQL, a sweep of devices with history (not in the default list)
#   bench/run.sh binary          # Android registrations over /binary (AMF) beside REST (not in the default list: ~3 min)
#   bench/run.sh live-activities # a Live Activity update to 1,000,000 devices: per token, then one broadcast (~5 min)
#   bench/run.sh issue27         # every row of issue 27 (throughput) in one run, as BENCHMARKS.md section 33 (~40 min)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

parts=${*:-"machine registrations store sweep memory apns fcm webpush devicecheck publish mixed postgres registry metrics"}
results="$WORK/results.txt"
: >"$results"
: >"$WORK/wrk.log"

echo "== build (release, scratch path $SCRATCH) =="
if ! timeout 3600 swift build -c release --scratch-path "$SCRATCH" >"$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log"
    exit 1
fi
tail -1 "$WORK/build.log"

for part in $parts; do
    case $part in
        machine | registrations | store | sweep | memory | apns | fcm | webpush | devicecheck | publish | mixed | postgres | scale | large | burst | registry | metrics | pubsub | rt | binary | console | callgrind | alternate | fanout | latency | pg-history | sweep-history | issue27 | live-activities)
            echo "(load average before $part: $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$results"
            bash "bench/$part.sh" 2>&1 | tee -a "$results" ;;
        *) echo "unknown part '$part' (machine, registrations, store, sweep, memory, apns, fcm, webpush, devicecheck, publish, mixed, postgres, scale, large, burst, registry, metrics, pubsub, rt, binary, console, callgrind, alternate, fanout, latency, pg-history, sweep-history, issue27, live-activities)" >&2; exit 2 ;;
    esac
done
echo "figures kept in $results; wrk's full output in $WORK/wrk.log"
