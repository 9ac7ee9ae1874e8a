-- wrk script of bench/bench.py: wrk ... -s wrk.lua URL -- MODE TOKEN [BODY_FILE]
-- MODE "get" sends the URL as is; "push" POSTs the packet of BODY_FILE with "__ID__" replaced by a
-- fresh id on every request; "cycle" GETs the paths listed in BODY_FILE (one a line) in turn.
-- TOKEN (may be empty) goes in the bearer header. At the end it prints one JSON line that
-- bench.py reads.

local threads = {}
local body, prefix, counter, cached = nil, "", 0, nil
local paths = nil

function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

function init(args)
  local mode, token, body_file = args[1], args[2], args[3]
  if token and token ~= "" then
    wrk.headers["Authorization"] = "Bearer " .. token
  end
  if mode == "push" then
    local file = assert(io.open(body_file, "rb"))
    body = file:read("*a")
    file:close()
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    -- 26 characters and time first, like a ULID: start second, thread, counter. Unique across
    -- threads and across runs started in different seconds.
    prefix = string.format("01%08X%02d", os.time(), index)
  elseif mode == "cycle" then
    paths = {}
    for line in io.lines(body_file) do
      table.insert(paths, wrk.format(nil, line))
    end
  else
    cached = wrk.format()
  end
end

function request()
  if cached then
    return cached
  end
  counter = counter + 1
  if paths then
    return paths[(counter + index) % #paths + 1]
  end
  local id = prefix .. string.format("%014d", counter)
  return wrk.format(nil, nil, nil, (body:gsub("__ID__", id, 1)))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.6f, "p50_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f, "socket_errors": %d, "http_errors": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.connect + e.read + e.write + e.timeout, e.status))
end
