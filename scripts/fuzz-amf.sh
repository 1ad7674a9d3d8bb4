#!/usr/bin/env bash
# Fuzzes HeraldAMF's decoder longer than the test suite does, the way CI runs it:
#   scripts/fuzz-amf.sh [iterations]      (default 1,000,000: about 1.5 minutes on 2 cores, debug build)
#
# Runs HeraldAMFTests' FuzzTests (mutated Backendless samples: each must be refused with an
# AMFDecodingError or decode to a value that encodes and decodes back the same) with a new seed each run,
# printed first so that a failure can be replayed: HERALD_AMF_FUZZ_SEED=<seed> scripts/fuzz-amf.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

iterations="${1:-1000000}"
seed="${HERALD_AMF_FUZZ_SEED:-$(($(date +%s) * 32768 + RANDOM))}"
started=$SECONDS
echo "== AMF fuzz: $iterations packets from seed $seed (replay: HERALD_AMF_FUZZ_SEED=$seed scripts/fuzz-amf.sh $iterations)"
status=0
HERALD_AMF_FUZZ_ITERATIONS="$iterations" HERALD_AMF_FUZZ_SEED="$seed" \
    swift test --filter HeraldAMFTests.FuzzTests || status=$?
echo "== fuzz-amf: $([ "$status" = 0 ] && echo passed || echo "FAILED (seed $seed)") in $((SECONDS - started)) s"
exit "$status"
