-- wrk script for the feed server's load test: each request POSTs one of the page bodies in $WEFT_PAGES_DIR
-- (page-000.json, page-001.json, ...), chosen at random, with its @FRESH@ tokens replaced by an id unique to
-- the request, so that its new posts are new content to the server while the others may be cached.

local pages = {}
local counter = 0

function setup(thread)
   thread:set("prefix", "t" .. tostring(#threads_seen + 1))
   table.insert(threads_seen, thread)
end
threads_seen = {}

function init(args)
   prefix = prefix or "t"  -- set per thread by setup()
   local dir = os.getenv("WEFT_PAGES_DIR") or "."
   local i = 0
   while true do
      local file = io.open(string.format("%s/page-%03d.json", dir, i), "r")
      if not file then break end
      pages[#pages + 1] = file:read("*a")
      file:close()
      i = i + 1
   end
   if #pages == 0 then error("no page bodies in " .. dir) end
   math.randomseed(#pages * 7919 + string.byte(prefix, -1))
end

function request()
   counter = counter + 1
   local id = prefix .. "n" .. tostring(counter)
   local body = string.gsub(pages[math.random(#pages)], "@FRESH@", id)
   return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end

function done(summary, latency, requests)
   local seconds = summary.duration / 1e6
   local errors = summary.errors
   io.write(string.format("WEFT requests %d\n", summary.requests))
   io.write(string.format("WEFT seconds %.3f\n", seconds))
   io.write(string.format("WEFT rps %.1f\n", summary.requests / seconds))
   io.write(string.format("WEFT p50_ms %.2f\n", latency:percentile(50) / 1000))
   io.write(string.format("WEFT p99_ms %.2f\n", latency:percentile(99) / 1000))
   io.write(string.format("WEFT max_ms %.2f\n", latency.max / 1000))
   io.write(string.format("WEFT errors connect=%d read=%d write=%d timeout=%d non2xx=%d\n",
      errors.connect, errors.read, errors.write, errors.timeout, errors.status))
end
