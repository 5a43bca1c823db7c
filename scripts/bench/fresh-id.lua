-- wrk script for `npm run bench`: POSTs one captured envelope with a fresh event id per request
-- (a per-thread random prefix plus a counter: unique, and far cheaper than 32 random digits),
-- optionally spread over BENCH_ISSUES issues (`--issues N`: the exception type varies) and
-- BENCH_USERS users (`--users N`: the user id in BENCH_USER_MARKER varies),
-- spreads threads over several targets (BENCH_ADDRS, for --nodes), optionally counts answers by
-- status (BENCH_COUNT_STATUS=1: defining `response` makes wrk hand every answer to Lua, which
-- costs generator CPU, so only the overload run does it) and prints one `BENCH_JSON {...}` line.
local body_file = assert(os.getenv("BENCH_BODY"), "BENCH_BODY not set")
local old_id = assert(os.getenv("BENCH_EVENT_ID"), "BENCH_EVENT_ID not set")
local path = assert(os.getenv("BENCH_PATH"), "BENCH_PATH not set")

local f = assert(io.open(body_file, "rb"))
local template = f:read("*a")
f:close()

-- The template split around every occurrence of the old id (slot "id") and, with BENCH_ISSUES
-- above 1, around the exception type BENCH_TYPE_MARKER (slot "type"): each request joins the
-- pieces with a new id, and a type that is one of BENCH_ISSUES (a distinct issue each, as the
-- type is part of the grouping hash), taken in turn per thread.
local issues = tonumber(os.getenv("BENCH_ISSUES") or "1")
local type_marker = os.getenv("BENCH_TYPE_MARKER") or ""
-- With BENCH_USERS above 0, the template names a user (slot "user": BENCH_USER_MARKER, the
-- user id's string with its closing quote) whose number varies per request.
local users = tonumber(os.getenv("BENCH_USERS") or "0")
local user_marker = os.getenv("BENCH_USER_MARKER") or ""
local pieces = {}
local slots = {}
local from = 1
while true do
  local s, e = string.find(template, old_id, from, true)
  local kind = "id"
  if issues > 1 then
    local ts, te = string.find(template, type_marker, from, true)
    if ts ~= nil and (s == nil or ts < s) then s, e, kind = ts, te, "type" end
  end
  if users > 0 then
    local us, ue = string.find(template, user_marker, from, true)
    if us ~= nil and (s == nil or us < s) then s, e, kind = us, ue, "user" end
  end
  if s == nil then break end
  pieces[#pieces + 1] = string.sub(template, from, s - 1)
  slots[#slots + 1] = kind
  from = e + 1
end
pieces[#pieces + 1] = string.sub(template, from)
local typed, named = false, false
for _, k in ipairs(slots) do
  if k == "type" then typed = true end
  if k == "user" then named = true end
end
assert(issues <= 1 or typed, "BENCH_ISSUES > 1 but BENCH_TYPE_MARKER is not in the payload")
assert(users <= 0 or named, "BENCH_USERS > 0 but BENCH_USER_MARKER is not in the payload")
-- The markers with their closing quote taken off: the number goes inside the string.
local type_prefix = string.sub(type_marker, 1, -2)
local user_prefix = string.sub(user_marker, 1, -2)

local run_id = assert(os.getenv("BENCH_RUN_ID"), "BENCH_RUN_ID not set")
local threads = {}
local addrs = {}
local addr_list = os.getenv("BENCH_ADDRS")
if addr_list ~= nil and addr_list ~= "" then
  for hostport in string.gmatch(addr_list, "[^,]+") do
    local host, port = string.match(hostport, "^(.*):(%d+)$")
    addrs[#addrs + 1] = wrk.lookup(host, port)[1]
  end
end

function setup(thread)
  local n = #threads
  -- LuaJIT's math.random is not seeded: the run's random part comes from the bench (BENCH_RUN_ID),
  -- or a warm-up and the measured run would send the same ids (stored once, answered twice).
  thread:set("prefix", string.format("%s%04x", run_id, n))
  if #addrs > 0 then thread.addr = addrs[(n % #addrs) + 1] end
  threads[n + 1] = thread
end

local counter = 0
local headers = { ["Content-Type"] = "application/x-sentry-envelope" }
local buf = {}
function request()
  counter = counter + 1
  local id = string.format("%s%016x", prefix, counter)
  local kind_type = nil
  if issues > 1 then kind_type = string.format('%s%d"', type_prefix, counter % issues) end
  -- A stride of 31, so that with as many users as issues an issue still sees several users.
  local kind_user = nil
  if users > 0 then kind_user = string.format('%s%d"', user_prefix, (counter * 31) % users) end
  for i, kind in ipairs(slots) do
    buf[2 * i - 1] = pieces[i]
    if kind == "id" then
      buf[2 * i] = id
    elseif kind == "type" then
      buf[2 * i] = kind_type
    else
      buf[2 * i] = kind_user
    end
  end
  buf[2 * #slots + 1] = pieces[#pieces]
  return wrk.format("POST", path, headers, table.concat(buf))
end

if os.getenv("BENCH_COUNT_STATUS") == "1" then
  ok, r429, r503, other = 0, 0, 0, 0
  function response(status)
    if status == 200 then ok = ok + 1
    elseif status == 429 then r429 = r429 + 1
    elseif status == 503 then r503 = r503 + 1
    else other = other + 1 end
  end
end

function done(summary, latency, requests)
  local codes = { ok = 0, r429 = 0, r503 = 0, other = 0, counted = false }
  for _, t in ipairs(threads) do
    if t:get("ok") ~= nil then
      codes.counted = true
      codes.ok = codes.ok + t:get("ok")
      codes.r429 = codes.r429 + t:get("r429")
      codes.r503 = codes.r503 + t:get("r503")
      codes.other = codes.other + t:get("other")
    end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"durationUs":%d,"requests":%d,"non2xx":%d,"socketErrors":%d,"timeouts":%d,' ..
    '"p50Us":%d,"p99Us":%d,"maxUs":%d,"statusCounted":%s,"ok":%d,"r429":%d,"r503":%d,"other":%d}\n',
    summary.duration, summary.requests, e.status, e.connect + e.read + e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, tostring(codes.counted),
    codes.ok, codes.r429, codes.r503, codes.other))
end
