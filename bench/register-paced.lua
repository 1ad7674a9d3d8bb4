-- wrk script: bench/register.lua with a pause before each request, so a few connections make a steady,
-- bounded rate instead of as many registrations as the server takes (wrk has no rate option).
--
-- Usage: HERALD_BENCH_PACE_MS=10 wrk -t2 -c10 -d20s --latency -s bench/register-paced.lua \
--          http://127.0.0.1:18081/bench/k-client/messaging/registrations
--
-- Each connection waits HERALD_BENCH_PACE_MS (default 10) between an answer and its next request:
-- 10 connections at 10 ms make about 1,000 registrations/s when answers take under a millisecond.

dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "register.lua")

local pace = tonumber(os.getenv("HERALD_BENCH_PACE_MS") or "10")

function delay()
   return pace
end
