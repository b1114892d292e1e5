import PushBridgeCore

/// The JSON report. Stable shape (keys are never renamed; new keys may be added):
/// ```
/// {"filter": {"since","until","app","dialect","route"},        // ms or null, strings or null
///  "total_requests": N,
///  "routes": [{"dialect","route","requests"}],
///  "unhandled_routes": [{"dialect","route","requests"}],
///  "dropped" | "changes" | "rejections" | "caveats": [{"dialect","route","field","kind","requests",
///     "share","first_seen","last_seen","apps":[…],"example_request_id","example_message"}],
///  "dropped_over_time": [{"start","requests","dropped_findings"}],
///  "shadow": {"comparisons","verdicts":[{"name","count"}],"matrix":[{"primary","shadow","count"}],
///     "disagreements","expected_disagreements","disagreement_examples":[{"request_id","verdict","primary_status","shadow_status","differences"}],
///     "primary_latency_ms":{"p50","p95","p99"},"shadow_latency_ms":{…},"primary_error_rate","shadow_error_rate"},
///  "upstream": {"outcomes":[{"name","count"}],"statuses":[…],"retried_requests","retries",
///     "rate_limited_attempts","rate_limit_wait_ms","scheduled_sends":[…]},
///  "readiness": {"filter","thresholds","all_ready","apps":[{"app","verdict","reasons","routes":[…]}],"refused_before_admission","notes"}}
/// ```
/// Times are Unix milliseconds; shares are 0…1; DEL and C1 controls in strings are `\u00XX`
/// escapes (``TerminalText/json(_:)``), as C0 ones are. The readiness object is `pushbridge readiness
/// --format json`'s (see ``ReadinessRendering/json(_:)``).
public enum ReportJSON {
    /// The report as pretty JSON text.
    public static func render(_ report: Report) -> String { TerminalText.json(JSONWriter.pretty(value(report))) + "\n" }

    /// The report as a JSON value.
    public static func value(_ r: Report) -> JSONValue {
        let f = r.filter
        var object: JSONObject = [
            "filter": .object(["since": f.since.map { .int($0) } ?? .null, "until": f.until.map { .int($0) } ?? .null,
                               "app": f.app.map { .string($0) } ?? .null, "dialect": f.dialect.map { .string($0) } ?? .null,
                               "route": f.route.map { .string($0) } ?? .null]),
            "total_requests": .int(Int64(r.totalRequests)),
            "routes": .array(r.routes.map { .object(["dialect": .string($0.dialect), "route": .string($0.route), "requests": .int(Int64($0.requests))]) }),
            "unhandled_routes": .array(r.unhandled.map { .object(["dialect": .string($0.dialect), "route": .string($0.route), "requests": .int(Int64($0.requests))]) }),
        ]
        for section in ReportFormatting.findingSections(r) { object.appendUnchecked(section.id, .array(section.groups.map(group))) }
        object.appendUnchecked("dropped_over_time", .array(r.droppedOverTime.map {
            .object(["start": .int($0.start), "requests": .int(Int64($0.requests)), "dropped_findings": .int(Int64($0.droppedFindings))])
        }))
        let s = r.shadow
        object.appendUnchecked("shadow", .object([
            "comparisons": .int(Int64(s.comparisons)), "verdicts": counts(s.verdicts),
            "matrix": .array(s.matrix.map { .object(["primary": .string($0.primary), "shadow": .string($0.shadow), "count": .int(Int64($0.count))]) }),
            "disagreements": .int(Int64(s.disagreements)),
            "expected_disagreements": .int(Int64(s.expectedDisagreements)),
            "disagreement_examples": .array(s.disagreementExamples.map {
                .object(["request_id": .string($0.requestId), "verdict": .string($0.verdict), "primary_status": $0.primaryStatus.map { .int(Int64($0)) } ?? .null,
                         "shadow_status": $0.shadowStatus.map { .int(Int64($0)) } ?? .null, "differences": .string($0.differences)])
            }),
            "primary_latency_ms": percentiles(s.primaryLatency), "shadow_latency_ms": percentiles(s.shadowLatency),
            "primary_error_rate": .double(ReportFormatting.share(s.primaryErrorRate)), "shadow_error_rate": .double(ReportFormatting.share(s.shadowErrorRate)),
        ]))
        let u = r.upstream
        object.appendUnchecked("upstream", .object([
            "outcomes": counts(u.outcomes), "statuses": counts(u.statuses), "retried_requests": .int(Int64(u.retriedRequests)),
            "retries": .int(Int64(u.retries)), "rate_limited_attempts": .int(Int64(u.rateLimitedAttempts)),
            "rate_limit_wait_ms": .double(u.rateLimitWaitMs), "scheduled_sends": counts(u.scheduledSends),
        ]))
        object.appendUnchecked("readiness", ReadinessRendering.json(r.readiness))
        return .object(object)
    }

    static func group(_ g: FindingGroup) -> JSONValue {
        .object(["dialect": .string(g.dialect), "route": .string(g.route), "field": .string(g.field), "kind": .string(g.kind),
                 "requests": .int(Int64(g.requests)), "share": .double(ReportFormatting.share(g.share)), "first_seen": .int(g.firstSeen),
                 "last_seen": .int(g.lastSeen), "apps": .array(g.apps.map { .string($0) }), "example_request_id": .string(g.exampleRequestId),
                 "example_message": .string(g.exampleMessage)])
    }

    private static func counts(_ counts: [Count]) -> JSONValue {
        .array(counts.map { .object(["name": .string($0.name), "count": .int(Int64($0.count))]) })
    }

    private static func percentiles(_ p: Percentiles) -> JSONValue {
        .object(["p50": p.p50.map { .double($0) } ?? .null, "p95": p.p95.map { .double($0) } ?? .null, "p99": p.p99.map { .double($0) } ?? .null])
    }
}
