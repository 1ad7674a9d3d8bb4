-- wrk script: GET /{appId}/{apiKey}/devices?<filter>&limit=100, the admin's device listing, one filter
-- per run, each request a random page: a cursor at a random device key, as a client paging through
-- the whole registry would send.
--
-- Usage: wrk -t2 -c8 -d5s --latency -s bench/devices.lua \
--          http://127.0.0.1:18081/bench/k-admin/devices -- 1000000 "appVersion=2.3"
-- After `--`: the populated device count, and the filter's query string ("" for none).

local threads = 0

function setup(thread)
   threads = threads + 1
   thread:set("threadId", threads)
end

local devices, filter

function init(args)
   devices = tonumber(args[1]) or 1000000
   filter = args[2] or ""
   math.randomseed(os.time() * 100 + threadId)
end

function request()
   local cursor = math.random(1, devices - 1000)
   local path = string.format("%s?limit=100&cursor=%d", wrk.path, cursor)
   if filter ~= "" then path = path .. "&" .. filter end
   return wrk.format("GET", path)
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
