-- wrk script: the REST twin of bench/binary-register.lua: POST …/messaging/registrations with the fields
-- the Android SDK's binary registration carries (an FCM-shaped token, os ANDROID, osVersion 30, channels
-- news and sports, an expiration in 2030), a new device each request.
--
-- Usage: wrk -t2 -c64 -d15s --latency -s bench/register-android.lua \
--          http://127.0.0.1:18081/bench/k-client/messaging/registrations

local threads = {}
local runTag = string.format("%06x", os.time() % 0x1000000)

function setup(thread)
   table.insert(threads, thread)
   thread:set("threadId", #threads)
   thread:set("runTag", runTag)
end

local counter = 0

function init(args)
   wrk.headers["Content-Type"] = "application/json"
end

function request()
   counter = counter + 1
   -- 16 hex digits, as ANDROID_ID; the token is the sample's length with the device id in it.
   local deviceId = string.format("%s%01x%09x", runTag, threadId, counter)
   local token = "cJsf0c6db2e95252934f06d2e4f:APA91bHUNx0c3Vdl7XrGm1V0kF6Q9zYt5b" .. deviceId
   local body = '{"deviceId":"' .. deviceId .. '","deviceToken":"' .. token
      .. '","os":"ANDROID","osVersion":"30","channels":["news","sports"],"expiration":1893456000000}'
   return wrk.format("POST", nil, nil, body)
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
