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

-- The shared RESULT line (bench/report.lua), found next to this script whatever the working directory.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
