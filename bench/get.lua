-- wrk script: GET /{appId}/{apiKey}/messaging/registrations/{deviceId} for random devices that
-- `herald-bench populate` created (ids dev-000000001 … dev-<N>).
--
-- Usage: wrk -t2 -c32 -d10s --latency -s bench/get.lua \
--          http://127.0.0.1:18081/bench/k-client/messaging/registrations -- 1000000
-- The argument after `--` is N, the number of populated devices.

local threads = 0

function setup(thread)
   threads = threads + 1
   thread:set("threadId", threads)
end

local devices

function init(args)
   devices = tonumber(args[1]) or 1000000
   math.randomseed(os.time() * 100 + threadId)
end

function request()
   local path = string.format("%s/dev-%09d", wrk.path, math.random(1, devices))
   return wrk.format("GET", path)
end

function done(summary, latency, requests)
   local e = summary.errors
   local seconds = summary.duration / 1e6
   io.write(string.format(
      "RESULT requests=%d seconds=%.2f rps=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%d socket_errors=%d\n",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      e.status, e.connect + e.read + e.write + e.timeout))
end
