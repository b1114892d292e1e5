/// The configuration `alloc-count` serves: `config/bench.json`'s two apps (OneSignal key
/// `bench-onesignal-key`, Pushwoosh auth `SECRET_API_TOKEN`, both as their SHA-256), pointed at
/// the in-process OpenPush stand-in, its audit in the bench's temp dir.
enum AllocationBenchConfiguration {
    /// The OpenPush key the apps name (`rest_key_env`).
    static let environment = ["PUSHBRIDGE_BENCH_OPENPUSH_KEY": "op_bench_key"]

    /// The configuration's JSON.
    static func json(upstreamPort: UInt16, audit: String) -> String {
        #"""
        {
          "listen": "127.0.0.1:0",
          "log_format": "logfmt",
          "audit_db": "\#(audit)",
          "limits": { "max_connections": 64, "per_ip_connections": 64, "idle_timeout_seconds": 300, "upstream_timeout_ms": 5000 },
          "openpush": { "base_url": "http://127.0.0.1:\#(upstreamPort)" },
          "delivery": { "sends_per_window": 1000000000, "window_ms": 1000, "queue_limit": 100000 },
          "apps": [
            { "name": "bench-onesignal", "dialect": "onesignal", "source_app_id": "bench-app",
              "openpush": { "app_id": "app_3f9c2b", "rest_key_env": "PUSHBRIDGE_BENCH_OPENPUSH_KEY" },
              "callers": [ { "key_sha256": "d2eb637a88cbe137abd1e622e6055372d84c45ff1cff670f540647a09f801a3a" } ] },
            { "name": "bench-pushwoosh", "dialect": "pushwoosh", "source_app_id": "XXXXX-XXXXX",
              "openpush": { "app_id": "app_3f9c2b", "rest_key_env": "PUSHBRIDGE_BENCH_OPENPUSH_KEY" },
              "callers": [ { "key_sha256": "72abf6e1ea253ba7d0d2ccd56291da3ada27ede6ec982fc15419e1427b7f7c2a" } ],
              "segment_map": { "FILTER_NAME_1": "seg_01hq8n4t2v" } }
          ]
        }
        """#
    }
}
