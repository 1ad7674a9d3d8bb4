-- wrk script: POST /{appId}/{apiKey}/devices/{deviceId}/launches, the app's launch check.
--
-- Usage: wrk -t2 -c64 -d15s --latency -s bench/launch.lua \
--          http://127.0.0.1:18081/bench/k-client/devices -- 100000
--
-- Device ids are dev-000000001 … dev-<N> (N after `--`, default 100,000), picked at random, so the
-- first launch of each creates its device and the rest update it, as installs do over a day. Every
-- request carries the app's version and locale, as the Backendless-style SDK call would.

local threads = 0

function setup(thread)
   threads = threads + 1
   thread:set("threadId", threads)
end

local devices
local body = '{"appVersion": "2.3", "appBuild": "41", "locale": "de-CH"}'

function init(args)
   devices = tonumber(args[1]) or 100000
   math.randomseed(os.time() * 100 + threadId)
   wrk.headers["Content-Type"] = "application/json"
end

function request()
   local path = string.format("%s/dev-%09d/launches", wrk.path, math.random(1, devices))
   return wrk.format("POST", path, nil, body)
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
