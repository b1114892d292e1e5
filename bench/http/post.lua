-- wrk script: POSTs the body in $BENCH_BODY with $BENCH_AUTH as Authorization (when set) and
-- prints one machine-readable RESULT line (latencies in microseconds).
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
local body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
local auth = os.getenv("BENCH_AUTH")
if auth ~= nil and auth ~= "" then wrk.headers["Authorization"] = auth end

done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format("RESULT p50_us=%d p99_us=%d rps=%.0f requests=%d non2xx=%d socket_errors=%d\n",
    latency:percentile(50), latency:percentile(99), summary.requests / seconds, summary.requests,
    e.status, e.connect + e.read + e.write + e.timeout))
end
