import PushBridgeCore
import Synchronization

/// The proxy's metrics, rendered for `GET /metrics` in the Prometheus text format 0.0.4.
///
/// All state sits behind one lock; every method is cheap and safe from any thread. Labelled
/// families keep at most `maxSeriesPerMetric` label sets (further ones are counted under
/// `other`), and label values are cut to `maxLabelValueBytes`, so a caller inventing field
/// names cannot grow memory or the scrape without bound.
public final class Metrics: Sendable {
    /// The default cap on distinct label sets per family.
    public static let defaultMaxSeriesPerMetric = 10_000

    struct State: Sendable {
        var requests: LabeledCounters
        var findings: LabeledCounters
        /// The findings' field paths with their indices folded, by the path as spelt.
        var foldedFields = FoldedFieldPaths()
        var upstreamAttempts: LabeledCounters
        var logLinesSuppressed: LabeledCounters
        var populationGaps: LabeledCounters
        var upstreamLatency = Histogram(bounds: Histogram.latencyBuckets)
        var auditWrite = Histogram(bounds: Histogram.latencyBuckets)
        var auditQueueDepth: Int64 = 0
        var auditQueueDepthSampler: (@Sendable () -> Int)?
        var auditDiskSampler: (@Sendable () -> AuditDiskGuard.Reading)?
        var auditDiskLimits: (ceiling: Int64, floor: Int64) = (0, 0)
        var auditPruned: UInt64 = 0
        var auditUnavailable: UInt64 = 0
        var shadowDropped: UInt64 = 0
        var shadowSkipped: UInt64 = 0
        var inflight: Int64 = 0
        var rolloutSampler: (@Sendable () -> [Metrics.RolloutSeries])?
        var fleetSampler: (@Sendable () -> Metrics.FleetReading)?
        var activitiesInFlight: [ActivitySeries] = []
    }

    /// One series of `pushbridge_activities_in_flight`.
    struct ActivitySeries: Sendable, Equatable {
        var app, provider: String
        var count: Int
    }

    let state: Mutex<State>

    /// Empty metrics with the given limits.
    public init(maxSeriesPerMetric: Int = Metrics.defaultMaxSeriesPerMetric, maxLabelValueBytes: Int = 128) {
        func family(_ names: [String]) -> LabeledCounters {
            LabeledCounters(labelNames: names, maxSeries: maxSeriesPerMetric, maxLabelValueBytes: maxLabelValueBytes)
        }
        state = Mutex(State(
            requests: family(["dialect", "route", "status"]),
            findings: family(["dialect", "field", "kind"]),
            upstreamAttempts: family(["result"]),
            logLinesSuppressed: family(["app", "reason"]),
            populationGaps: family(["app", "outcome"])
        ))
    }

    /// Counts a finished request in `pushbridge_requests_total`. Use `none` and `unknown` for
    /// a request that matched no dialect or route.
    public func recordRequest(dialect: String, route: String, status: Int) {
        state.withLock { $0.requests.add(dialect, route, String(status)) }
    }

    /// Counts a finished request; a `nil` dialect is `none`, a `nil` route `unknown`.
    public func recordRequest(dialect: DialectName?, route: RouteKind?, status: Int) {
        recordRequest(dialect: dialect?.rawValue ?? "none", route: route?.rawValue ?? "unknown", status: status)
    }

    /// Counts finding lines the log held back in `pushbridge_log_lines_suppressed_total`:
    /// `reason` `per_request_cap` (summed up in an "and N more" line) or `identical_rate`.
    public func recordSuppressedLogLines(app: String, _ held: EventLog.HeldBack) {
        guard held.overCap > 0 || held.rateLimited > 0 else { return }
        state.withLock { state in
            // Through the family's reused key: an array literal of the two was an allocation
            // per request whose findings' lines were held back.
            if held.overCap > 0 { state.logLinesSuppressed.add(app, "per_request_cap", amount: UInt64(held.overCap)) }
            if held.rateLimited > 0 { state.logLinesSuppressed.add(app, "identical_rate", amount: UInt64(held.rateLimited)) }
        }
    }

    /// Counts each finding in `pushbridge_findings_total`. Array indices in field paths are
    /// folded (`notifications[3].title` → `notifications[].title`) to keep cardinality down.
    public func recordFindings(_ findings: [Finding], dialect: DialectName) {
        guard !findings.isEmpty else { return }
        // Each path folded once and kept (``FoldedFieldPaths``: no new string per finding, no
        // array of them per request); each finding counted through the family's reused key.
        state.withLock { state in
            for finding in findings {
                let field = state.foldedFields(finding.field)
                state.findings.add(dialect.rawValue, field, finding.kind.rawValue)
            }
        }
    }

    /// Counts one upstream attempt in `pushbridge_upstream_attempts_total`; `result` is a
    /// short class such as `ok`, `http_5xx` or an ``UpstreamFailure/Kind`` raw value.
    public func recordUpstreamAttempt(result: String) {
        state.withLock { $0.upstreamAttempts.add(result) }
    }

    /// The `result` of an OpenPush attempt: `2xx` … `5xx` by status, `error` without one,
    /// `429` for OpenPush's own rate limit (apart from `4xx`: the pacer should have prevented
    /// it, so the alert rules page on it), and `population_gap` for OpenPush's documented 400
    /// "no push-to-start token" and 404 "no live activity open" (the phone is not on OpenPush
    /// yet: not a 4xx error).
    public static func attemptResult(status: Int?, body: String?) -> String {
        guard let status else { return "error" }
        if status == 429 { return "429" }
        return PopulationGap.isOpenPushGap(status: status, body: body) ? "population_gap" : "\(status / 100)xx"
    }

    /// Counts a request whose outcome is a population gap (`not_on_openpush`,
    /// `not_on_legacy`) in `pushbridge_population_gaps_total`, apart from every error.
    public func recordPopulationGap(app: String, outcome: AuditOutcome) {
        guard outcome.isPopulationGap else { return }
        state.withLock { $0.populationGaps.add([app, outcome.rawValue]) }
    }

    /// Records one upstream call's latency in `pushbridge_upstream_latency_seconds`.
    public func observeUpstreamLatency(seconds: Double) {
        state.withLock { $0.upstreamLatency.observe(seconds) }
    }

    /// Records one upstream call's latency.
    public func observeUpstreamLatency(_ duration: Duration) { observeUpstreamLatency(seconds: Self.seconds(duration)) }

    /// Records one audit write (or group commit) in `pushbridge_audit_write_seconds`.
    public func observeAuditWrite(seconds: Double) {
        state.withLock { $0.auditWrite.observe(seconds) }
    }

    /// Counts a request refused because the audit database could not be reached
    /// (`pushbridge_audit_unavailable_total`).
    public func recordAuditUnavailable() {
        state.withLock { $0.auditUnavailable += 1 }
    }

    /// Records one audit write.
    public func observeAuditWrite(_ duration: Duration) { observeAuditWrite(seconds: Self.seconds(duration)) }

    /// Sets `pushbridge_audit_queue_depth` (ignored while a sampler is installed).
    public func setAuditQueueDepth(_ depth: Int) {
        state.withLock { $0.auditQueueDepth = Int64(depth) }
    }

    /// Samples `pushbridge_audit_queue_depth` from `sampler` at each render (outside the
    /// metrics lock); `nil` goes back to the value last set.
    public func sampleAuditQueueDepth(_ sampler: (@Sendable () -> Int)?) {
        state.withLock { $0.auditQueueDepthSampler = sampler }
    }

    /// Samples the audit's disk gauges (`pushbridge_audit_used_bytes`, `…_file_bytes`,
    /// `…_free_bytes`, `…_disk_warning`) from `guard` at each render.
    public func sampleAuditDisk(_ guard: AuditDiskGuard) {
        state.withLock { state in
            state.auditDiskSampler = { `guard`.read() }
            state.auditDiskLimits = (`guard`.ceilingBytes, `guard`.floorBytes)
        }
    }

    /// Counts audit rows deleted by retention in `pushbridge_audit_pruned_rows_total`.
    public func recordAuditPruned(_ rows: Int) {
        state.withLock { $0.auditPruned += UInt64(rows) }
    }

    /// Counts shadow sends dropped (queue full or shut down) in `pushbridge_shadow_dropped_total`.
    public func recordShadowDropped(_ count: Int = 1) {
        state.withLock { $0.shadowDropped &+= UInt64(max(0, count)) }
    }

    /// Counts shadow sends to OpenPush skipped because no slot live sends did not need came in
    /// time (`delivery.shadow_max_wait_ms`) in `pushbridge_shadow_skipped_total`.
    public func recordShadowSkipped() {
        state.withLock { $0.shadowSkipped &+= 1 }
    }

    /// Sets `pushbridge_activities_in_flight{app,provider}` from the activity ledger's counts:
    /// every app in `apps` gets its `openpush` and `legacy` series (0 when it holds none), and
    /// a `both` series when activities are held on both sides; an app only the ledger knows
    /// is shown too.
    public func setActivitiesInFlight(_ counts: [ActivityCount], apps: [String]) {
        var series: [String: Int] = [:]
        for app in apps { for provider in [ActivityHolder.openpush, .legacy] { series["\(app)\u{1}\(provider.rawValue)"] = 0 } }
        for count in counts { series["\(count.app)\u{1}\(count.holder.rawValue)", default: 0] += count.count }
        let sorted = series.keys.sorted().prefix(Self.maxActivitySeries).map { key in
            let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
            return ActivitySeries(app: parts[0], provider: parts[1], count: series[key] ?? 0)
        }
        state.withLock { $0.activitiesInFlight = Array(sorted) }
    }

    /// The most series `pushbridge_activities_in_flight` shows (apps are configured, so few).
    static let maxActivitySeries = 3_000

    /// Marks a request as started: `pushbridge_inflight_requests` goes up by one.
    public func requestStarted() { state.withLock { $0.inflight += 1 } }

    /// Marks a request as finished: `pushbridge_inflight_requests` goes down by one.
    public func requestFinished() { state.withLock { $0.inflight -= 1 } }

    /// `a[12].b[0]` → `a[].b[]`.
    /// ``foldIndices(_:)`` for an ASCII path, on bytes (the same result, without walking
    /// `Character`s).
    static func foldIndicesASCII(_ path: String) -> String {
        // Written straight into the string's storage from the path's own bytes (a folded path
        // is never longer): once per finding of every request, where an array for the output,
        // one for the digits and the string made from them cost three allocations.
        var path = path
        return path.withUTF8 { source in
            String(unsafeUninitializedCapacity: source.count) { out in
                var n = 0
                var digitsFrom: Int?
                for (i, b) in source.enumerated() {
                    if let from = digitsFrom {
                        if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") { continue }
                        out[n] = UInt8(ascii: "[")
                        n += 1
                        if b == UInt8(ascii: "]") && i > from {
                            out[n] = UInt8(ascii: "]")
                            n += 1
                        } else {
                            for digit in source[from..<i] { out[n] = digit; n += 1 }
                            out[n] = b
                            n += 1
                        }
                        digitsFrom = nil
                    } else if b == UInt8(ascii: "[") {
                        digitsFrom = i + 1
                    } else {
                        out[n] = b
                        n += 1
                    }
                }
                if let from = digitsFrom {
                    out[n] = UInt8(ascii: "[")
                    n += 1
                    for digit in source[from...] { out[n] = digit; n += 1 }
                }
                return n
            }
        }
    }

    static func foldIndices(_ path: String) -> String {
        guard path.containsUTF8(UInt8(ascii: "[")) else { return path }
        if path.utf8.allSatisfy({ $0 < 0x80 }) { return foldIndicesASCII(path) }
        var out = ""
        var inIndex = false
        var digits = ""
        for c in path {
            if inIndex {
                if c.isASCII, c.isNumber { digits.append(c); continue }
                out += c == "]" && !digits.isEmpty ? "[]" : "[" + digits + String(c)
                inIndex = false
                digits = ""
            } else if c == "[" {
                inIndex = true
            } else {
                out.append(c)
            }
        }
        if inIndex { out += "[" + digits }
        return out
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (s, atto) = duration.components
        return Double(s) + Double(atto) / 1e18
    }
}
