#!/usr/bin/env bash
# Describes the machine the figures come from: cores, memory, CPU model, and how long a durable
# 4 KiB write (write + fsync, as a WAL commit does) takes on the disk holding the benchmark files.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

echo "== machine =="
echo "nproc: $(nproc)"
echo "memory: $(awk '/^MemTotal:/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
echo "cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "kernel: $(uname -r)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# A fingerprint of the sources as built, committed or not, to tell which code a figure belongs to.
fingerprint=$(cd "$BENCH_ROOT" && git ls-files -co --exclude-standard -- Sources Package.swift | LC_ALL=C sort -u |
    while read -r file; do [ -f "$file" ] && cat "$file"; done | sha256sum | cut -c1-12)
echo "sources fingerprint: $fingerprint"
echo "source: commit $(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(git -C "$BENCH_ROOT" status --short -- Sources Package.swift 2>/dev/null | wc -l) changed paths under Sources/ and Package.swift"
echo "disk for $WORK: $(df -hT "$WORK" | awk 'NR==2 {print $1, $2}')"
probe="$WORK/fsync-probe"
# oflag=dsync: every 4 KiB block is written and flushed before the next, like one commit each.
out=$(dd if=/dev/zero of="$probe" bs=4k count=2000 oflag=dsync 2>&1 | tail -1)
rm -f "$probe"
seconds=$(echo "$out" | awk -F', ' '{print $(NF-1)}' | awk '{print $1}')
echo "durable 4 KiB writes: 2000 in ${seconds} s = $(awk -v s="$seconds" 'BEGIN {printf "%.3f ms each, %.0f/s", s*1000/2000, 2000/s}')"
