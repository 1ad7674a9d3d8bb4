#!/usr/bin/env bash
# Runs the concurrency-heavy suites under the thread sanitizer: the APNs client (its curl loop thread,
# send streams and in-flight limits), the store's group commit, and the fan-out through a real server (APNs, FCM,
# and Web Push, whose client encrypts on a concurrent queue), and Backendless RT (Engine.IO sessions fed by the
# pub/sub hub's reader, their transports and the socket.io tasks: HeraldSocketIOTests and RTTests).
# A data race fails the run (TSAN_OPTIONS halt_on_error). The suites run one at a time: the sanitizer
# slows everything 5 to 15 times, and in parallel on 2 cores their timeouts (written for normal
# speed) expire before the work is done. The build goes into .build-tsan, apart from
# the normal one, so neither rebuilds the other. `.ci/run` runs it under scripts/with-postgres.sh (GroupCommitTests covers both backends).
#
#   scripts/tsan.sh [extra swift test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

suites='HeraldAPNsTests|GroupCommitTests|PublishFanOutTests|RetryTests|DispatchLeaseTests|TokenHygieneTests|HeraldTests\.WebPushTests|HeraldSocketIOTests|HeraldTests\.RTTests'
# StreamLimitTests holds the client to no stream refused while the mock APNs narrows its limit to one after each
# rejection until its next acceptance. A stream the client sent before it could read a rejection is refused, so
# the test is a statement about timing at full speed; under the sanitizer the narrow spells last long enough that
# thousands were (a CI run on 6446ecb: 2,202 refused, 25 connections). The lane code it drives runs on one thread.
skipped='StreamLimitTests'
swift build --build-tests --sanitize=thread --scratch-path .build-tsan
# SQLite's WAL reads its shared index without a lock by design: see scripts/tsan-suppressions.txt.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan-suppressions.txt ${TSAN_OPTIONS:-}" \
    swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter "$suites" --skip "$skipped" --no-parallel "$@"
