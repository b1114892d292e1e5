import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

/// Issue 31, the log's cost (branch `logcost`): the lines a OneSignal start writes — its
/// translation findings (the two caveats of `fixtures/onesignal-start-reference`, one hostile
/// finding at info, one past the cap summed up) and its access line, and an access line of
/// hostile values — pinned byte for byte in both formats as `main` wrote them before the cut
/// (`log-bench` printing this scenario from `main`'s tree). Control characters escaped, the
/// query (and its key) dropped, keys in their order: a changed byte fails here.
struct LogLinePinTests {
    static let requestId = "req_01JDZ8Q6R2W9XK4M7N3P5T8V1B"
    static let path = "/apps/bench-app/activities/activity/DeliveryAttributes"

    /// The scenario's lines in `format`, the log's clock counted.
    static func lines(_ format: ProxyConfiguration.LogFormat, clock: EventLogNothingToWriteTests.CountingClock) throws -> String {
        let body = Array(try Data(contentsOf: CLIRunner.repoRoot.appendingPathComponent("fixtures/onesignal-start-reference/body.json")))
        let context = TranslationContext(now: 1_781_049_600, requestId: requestId)
        let translation = try #require(Dialects.translate(path: path, body: body, context: context)).1
        let hostile = Finding(field: "alert.tïtle\n\"x\"\u{7} y=z", kind: .dropped, severity: .info, message: "tab\there \\ \u{2028} é\u{85}")
        let extra = Finding(field: "x", kind: .caveat, message: "held back by the cap")
        let collector = LineCollector()
        let log = EventLog(format: format, minimumLevel: .debug, clock: { clock.now() },
                           findingLimiter: FindingLogLimiter(maxLinesPerRequest: 3), sink: collector.sink)
        log.findings(translation.findings + [hostile, extra], requestId: requestId, dialect: .onesignal, app: "bench-onesignal", route: .start)
        log.access(requestId: requestId, method: "POST", path: path + "?api_key=sk_live_1", status: 201, durationMs: 12.3456,
                   dialect: .onesignal, app: "bench-onesignal", outcome: "forwarded", remote: "127.0.0.1")
        log.access(requestId: "req \"x\"\n", method: "GET", path: "/x y\u{1}é=", status: 404, durationMs: 0, dialect: nil, app: nil, outcome: "no route", remote: nil)
        return collector.output
    }

    @Test func theLogfmtLinesAreMainsByteForByte() throws {
        let clock = EventLogNothingToWriteTests.CountingClock()
        #expect(try Self.lines(.logfmt, clock: clock) == Self.logfmt)
        #expect(clock.count == 4, "one read for the limiter, one for the finding lines, one an access line")
    }

    @Test func theJSONLinesAreMainsByteForByte() throws {
        #expect(try Self.lines(.json, clock: EventLogNothingToWriteTests.CountingClock()) == Self.json)
    }

    /// Every finding line held back: one clock read (the limiter's), nothing written.
    @Test func findingsAllHeldBackWriteNothing() {
        let clock = EventLogNothingToWriteTests.CountingClock()
        let collector = LineCollector()
        let log = EventLog(clock: { clock.now() }, findingLimiter: FindingLogLimiter(identicalLinesPerWindow: 1), sink: collector.sink)
        let findings = [Finding(field: "a", kind: .caveat, message: "m")]
        log.findings(findings, requestId: "r1", dialect: .onesignal, app: "a", route: .start)
        let written = collector.output
        let held = log.findings(findings, requestId: "r2", dialect: .onesignal, app: "a", route: .start)
        #expect(held == EventLog.HeldBack(overCap: 0, rateLimited: 1))
        #expect(collector.output == written && clock.count == 3)
    }

    // The lines `main` wrote (a8c363b), one literal each, as written (raw: a `\` is a byte).
    static let logfmt = [
        ##"ts=2026-11-18T11:06:40.123Z level=warning msg="translation finding" request_id=req_01JDZ8Q6R2W9XK4M7N3P5T8V1B dialect=onesignal app=bench-onesignal route=start field=included_segments[0] kind=caveat severity=warning reason="no segment map is configured for this app, so the OneSignal segment \"seg_01hq8n4t2v\" was sent as the OpenPush segment id; OpenPush segments are ids, and unless one has exactly this id it matches no device — add \"seg_01hq8n4t2v\": \"<OpenPush segment id>\" to the app's segment_map""##,
        ##"ts=2026-11-18T11:06:40.123Z level=warning msg="translation finding" request_id=req_01JDZ8Q6R2W9XK4M7N3P5T8V1B dialect=onesignal app=bench-onesignal route=start field=included_segments kind=caveat severity=warning reason="OpenPush reaches at most 2000 devices per send and does not report the cut: if segment \"seg_01hq8n4t2v\" holds more devices with a push-to-start token, only the first 2000 get this start. Split larger audiences into batches (OpenPush allows 60 sends a minute)""##,
        ##"ts=2026-11-18T11:06:40.123Z level=info msg="translation finding" request_id=req_01JDZ8Q6R2W9XK4M7N3P5T8V1B dialect=onesignal app=bench-onesignal route=start field="alert.tïtle\n\"x\"\u0007 y=z" kind=dropped severity=info reason="tab\there \\ \u2028 é\u0085""##,
        ##"ts=2026-11-18T11:06:40.123Z level=warning msg="translation finding" request_id=req_01JDZ8Q6R2W9XK4M7N3P5T8V1B dialect=onesignal app=bench-onesignal route=start field=- kind=- severity=warning reason="and 1 more findings of this request, not logged (all are in the audit)""##,
        ##"ts=2026-11-18T11:06:40.123Z level=info msg=request request_id=req_01JDZ8Q6R2W9XK4M7N3P5T8V1B method=POST path=/apps/bench-app/activities/activity/DeliveryAttributes status=201 duration_ms=12.346 dialect=onesignal app=bench-onesignal outcome=forwarded remote=127.0.0.1"##,
        ##"ts=2026-11-18T11:06:40.123Z level=info msg=request request_id="req \"x\"\n" method=GET path="/x y\u0001é=" status=404 duration_ms=0 dialect=- app=- outcome="no route" remote=-"##,
    ].map { $0 + "\n" }.joined()

    static let json = [
        ##"{"ts":"2026-11-18T11:06:40.123Z","level":"warning","msg":"translation finding","request_id":"req_01JDZ8Q6R2W9XK4M7N3P5T8V1B","dialect":"onesignal","app":"bench-onesignal","route":"start","field":"included_segments[0]","kind":"caveat","severity":"warning","reason":"no segment map is configured for this app, so the OneSignal segment \"seg_01hq8n4t2v\" was sent as the OpenPush segment id; OpenPush segments are ids, and unless one has exactly this id it matches no device — add \"seg_01hq8n4t2v\": \"<OpenPush segment id>\" to the app's segment_map"}"##,
        ##"{"ts":"2026-11-18T11:06:40.123Z","level":"warning","msg":"translation finding","request_id":"req_01JDZ8Q6R2W9XK4M7N3P5T8V1B","dialect":"onesignal","app":"bench-onesignal","route":"start","field":"included_segments","kind":"caveat","severity":"warning","reason":"OpenPush reaches at most 2000 devices per send and does not report the cut: if segment \"seg_01hq8n4t2v\" holds more devices with a push-to-start token, only the first 2000 get this start. Split larger audiences into batches (OpenPush allows 60 sends a minute)"}"##,
        ##"{"ts":"2026-11-18T11:06:40.123Z","level":"info","msg":"translation finding","request_id":"req_01JDZ8Q6R2W9XK4M7N3P5T8V1B","dialect":"onesignal","app":"bench-onesignal","route":"start","field":"alert.tïtle\n\"x\"\u0007 y=z","kind":"dropped","severity":"info","reason":"tab\there \\ \u2028 é\u0085"}"##,
        ##"{"ts":"2026-11-18T11:06:40.123Z","level":"warning","msg":"translation finding","request_id":"req_01JDZ8Q6R2W9XK4M7N3P5T8V1B","dialect":"onesignal","app":"bench-onesignal","route":"start","field":"-","kind":"-","severity":"warning","reason":"and 1 more findings of this request, not logged (all are in the audit)"}"##,
        ##"{"ts":"2026-11-18T11:06:40.123Z","level":"info","msg":"request","request_id":"req_01JDZ8Q6R2W9XK4M7N3P5T8V1B","method":"POST","path":"/apps/bench-app/activities/activity/DeliveryAttributes","status":201,"duration_ms":12.346,"dialect":"onesignal","app":"bench-onesignal","outcome":"forwarded","remote":"127.0.0.1"}"##,
        ##"{"ts":"2026-11-18T11:06:40.123Z","level":"info","msg":"request","request_id":"req \"x\"\n","method":"GET","path":"/x y\u0001é=","status":404,"duration_ms":0,"dialect":"-","app":"-","outcome":"no route","remote":"-"}"##,
    ].map { $0 + "\n" }.joined()
}
