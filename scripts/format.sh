#!/usr/bin/env bash
# Formats Herald's Swift sources with the toolchain's swift-format and the committed .swift-format.
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing; list every difference and fail if there is one (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests fixtures/apns-mock/Sources fixtures/mock-kit/Sources fixtures/fcm-mock/Sources fixtures/devicecheck-mock/Sources fixtures/webpush-mock/Sources)
if [ "${1:-}" = "--check" ]; then
    swift format lint --strict --recursive --parallel "${paths[@]}"
else
    swift format format --in-place --recursive --parallel "${paths[@]}"
fi
