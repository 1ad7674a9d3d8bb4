-- The one-line summary every wrk script prints at the end ("RESULT key=value …"), which bench/lib.sh
-- picks out of wrk's output. Loaded by the scripts beside it with dofile. A script that defines
-- extraResult() has what it returns (more "key=value" pairs) added at the end of the line.
function done(summary, latency, requests)
   local e = summary.errors
   local seconds = summary.duration / 1e6
   io.write(string.format(
      "RESULT requests=%d seconds=%.2f rps=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d%s\n",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      e.status, e.connect + e.read + e.write + e.timeout, extraResult and (" " .. extraResult()) or ""))
end
