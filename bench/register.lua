-- wrk script: POST /{appId}/{apiKey}/messaging/registrations with a new device on every request.
--
-- Usage: wrk -t2 -c64 -d15s --latency -s bench/register.lua \
--          http://127.0.0.1:18081/bench/k-client/messaging/registrations
--
-- Device ids are "<run>-<thread>-<counter>", so every request inserts a device (run = start time, so
-- repeated runs against one database keep inserting). Tokens are 64 hex digits. Every other request
-- names two channels; every third carries an `expiration` one day ahead (epoch milliseconds).
-- done() prints one RESULT line that bench/registrations.sh reads.

local threads = {}
local runTag = tostring(os.time())

function setup(thread)
   table.insert(threads, thread)
   thread:set("threadId", #threads)
   thread:set("runTag", runTag)
end

local counter = 0
local expiration

function init(args)
   -- os.time() is whole seconds; one day ahead leaves ample margin for the run.
   expiration = string.format("%d", (os.time() + 86400) * 1000)
   wrk.headers["Content-Type"] = "application/json"
end

function request()
   counter = counter + 1
   local deviceId = string.format("%s-%d-%d", runTag, threadId, counter)
   local token = string.format("%08x%08x", threadId, counter) .. "00112233445566778899aabbccddeeff0123456789abcdef"
   local channels = (counter % 2 == 0) and '["news","sports"]' or '["news"]'
   local body = '{"deviceId":"' .. deviceId .. '","deviceToken":"' .. token .. '","os":"IOS","channels":' .. channels
   if counter % 3 == 0 then
      body = body .. ',"expiration":' .. expiration
   end
   return wrk.format("POST", nil, nil, body .. "}")
end

-- The shared RESULT line (bench/report.lua), found next to this script whatever the working directory.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
