-- wrk script: the Android SDK's registerDevice over AMF (POST …/binary), as captured in
-- fixtures/amf/requests/registerDevice.amf (channels news and sports, expiration 2030-01-01), with the
-- device id and the token's last 16 characters replaced in place (same lengths, so the packet stays
-- valid) by a new device per request. Counts answers that are not an AcknowledgeMessage (faults=).
--
-- Usage: HERALD_BENCH_AMF_SAMPLE=fixtures/amf/requests/registerDevice.amf \
--        wrk -t2 -c64 -d15s --latency -s bench/binary-register.lua http://127.0.0.1:18081/bench/k-client/binary

local threads = {}
local runTag = string.format("%06x", os.time() % 0x1000000)
local sampleDevice = "3f2a9c1e5b7d4e60"
local sampleToken = "cJsf0c6db2e95252934f06d2e4f:APA91bHUNx0c3Vdl7XrGm1V0kF6Q9zYt5bq3R2pQ8wJm"

function setup(thread)
   table.insert(threads, thread)
   thread:set("threadId", #threads)
   thread:set("runTag", runTag)
end

local counter = 0
local faults = 0
local head, middle, tail

function init(args)
   local file = assert(io.open(os.getenv("HERALD_BENCH_AMF_SAMPLE"), "rb"))
   local sample = file:read("*a")
   file:close()
   -- The packet writes the device id, then the token (checked here, so a new sample cannot go unnoticed).
   local d = assert(sample:find(sampleDevice, 1, true), "device id not in the sample")
   local t = assert(sample:find(sampleToken, 1, true), "token not in the sample")
   assert(d < t, "the sample writes the token before the device id")
   local tokenKeep = #sampleToken - 16
   head = sample:sub(1, d - 1)
   middle = sample:sub(d + #sampleDevice, t + tokenKeep - 1)
   tail = sample:sub(t + #sampleToken)
   wrk.headers["Content-Type"] = "application/x-amf"
end

function request()
   counter = counter + 1
   local deviceId = string.format("%s%01x%09x", runTag, threadId, counter)
   return wrk.format("POST", nil, nil, head .. deviceId .. middle .. deviceId .. tail)
end

function response(status, headers, body)
   if status ~= 200 or not body:find("AcknowledgeMessage", 1, true) then
      faults = faults + 1
   end
end

function extraResult()
   local total = 0
   for _, thread in ipairs(threads) do total = total + (thread:get("faults") or 0) end
   return string.format("faults=%d", total)
end

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
