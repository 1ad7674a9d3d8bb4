#!/usr/bin/env bash
# Builds the release `herald` binary for another machine: dist/herald, with the Swift runtime and
# Foundation linked in (--static-swift-stdlib), so the target needs no Swift toolchain.
#
# What the binary still loads from the system (Debian 12 package names; `readelf -d dist/herald` lists
# the direct ones): libcurl4 (the APNs client; it brings libssl3, libnghttp2 and the rest that `ldd`
# shows), libstdc++6 and libgcc-s1 (in every Debian), and glibc. SQLite and the server's TLS
# (BoringSSL) are compiled in. On the target:  apt-get install -y libcurl4 ca-certificates
# Build on the oldest Debian/Ubuntu you deploy to: glibc is forward compatible only.
#
#   scripts/release.sh            build into .build-release, copy to dist/herald, print its libraries
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --static-swift-stdlib --product herald --scratch-path .build-release
mkdir -p dist
cp .build-release/release/herald dist/herald
strip dist/herald 2>/dev/null || true

echo "dist/herald $(dist/herald --version) ($(du -h dist/herald | cut -f1))"
echo "It loads these shared libraries (none of them from the Swift toolchain):"
ldd dist/herald | sed 's/^/  /'
if ldd dist/herald | grep -q -e libswiftCore -e libFoundation -e /opt/swift; then
    echo "release: the binary still needs the Swift toolchain's libraries" >&2
    exit 1
fi
