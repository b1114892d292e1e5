import Testing
import PushBridgeCore

struct OneSignalDialectTests {
    let dialect = OneSignalDialect()
    let startRoute = InboundRoute(dialect: .onesignal, kind: .start, appId: "app", activityType: "T")

    func translation(_ kind: RouteKind) -> Translation { Translation(dialect: .onesignal, route: kind) }
    func body(_ r: DialectResponse) throws -> JSONValue { try JSONParser.parse(r.body) }

    @Test func startAnswersNotificationIdAndUpdateAnswersId() throws {
        let s = dialect.render(results: [.accepted(id: "msg_1", replayed: false)], for: translation(.start))
        #expect(s.status == 201)
        #expect(try body(s) == .object(["notification_id": .string("msg_1")]))
        let u = dialect.render(results: [.accepted(id: "msg_2", replayed: false)], for: translation(.update))
        #expect(try body(u) == .object(["id": .string("msg_2")]))
    }

    @Test func idempotentReplayHeaderIsCarried() {
        let r = dialect.render(results: [.accepted(id: "msg_1", replayed: true)], for: translation(.start))
        #expect(r.headers.contains { $0.0 == "Idempotent-Replayed" && $0.1 == "true" })
    }

    @Test func openPushRejectionKeepsStatusAndRetryAfter() throws {
        let r = dialect.render(results: [.rejected(status: 429, message: "rate limit exceeded", retryAfter: 60)], for: translation(.start))
        #expect(r.status == 429)
        #expect(r.headers.contains { $0.0 == "Retry-After" && $0.1 == "60" })
        #expect(try body(r) == .object(["errors": .array([.string("rate limit exceeded")])]))
    }

    @Test(arguments: [
        (ProxyFailure.badRequest(TranslationError(field: "name", rule: "is required")), 400, "name: is required"),
        (.unauthorized("invalid REST API key"), 403, "invalid REST API key"),
        (.notFound("unknown app"), 404, "unknown app"),
        (.payloadTooLarge(limit: 1024), 413, "request body is larger than the limit of 1024 bytes"),
        (.upstream("OpenPush did not answer within 10000 ms"), 503, "OpenPush did not answer within 10000 ms"),
    ])
    func failuresAreOneSignalErrors(failure: ProxyFailure, status: Int, message: String) throws {
        let r = dialect.render(failure: failure, route: startRoute)
        #expect(r.status == status)
        #expect(try body(r) == .object(["errors": .array([.string(message)])]))
    }

    @Test func transportFailureIsA503() {
        #expect(dialect.render(results: [.failed(message: "connection refused")], for: translation(.update)).status == 503)
    }

    @Test(arguments: [
        ("/apps/A/activities/activity/T", InboundRoute(dialect: .onesignal, kind: .start, appId: "A", activityType: "T")),
        ("/api/v1/apps/A/activities/activity/T?x=1", InboundRoute(dialect: .onesignal, kind: .start, appId: "A", activityType: "T")),
        ("/apps/A/live_activities/order%2088/notifications", InboundRoute(dialect: .onesignal, kind: .update, appId: "A", activityId: "order 88")),
        ("/json/1.3/startLiveActivity", InboundRoute(dialect: .pushwoosh, kind: .start)),
        ("/json/1.3/updateLiveActivity/", InboundRoute(dialect: .pushwoosh, kind: .update)),
        ("/v1/live-activities/send", InboundRoute(dialect: .buzzkit, kind: .send)),
    ])
    func routesMatch(path: String, route: InboundRoute) {
        #expect(InboundRoute.match(path: path) == route)
    }

    @Test(arguments: ["/", "/apps/A/activities/activity/", "/apps//activities/activity/T", "/apps/A/live_activities/x/other", "/api/v2/apps/A/activities/activity/T", "/apps/A/live_activities/%zz/notifications"])
    func otherPathsDoNotMatch(path: String) {
        #expect(InboundRoute.match(path: path) == nil)
    }

    @Test func encodedSlashInActivityIdIsRejected() {
        let route = InboundRoute.match(path: "/apps/A/live_activities/a%2Fb/notifications")!
        let t = dialect.translate(route: route, body: Array(#"{"event":"update","name":"n","event_updates":{"a":1}}"#.utf8), context: TranslationContext(now: 0))
        #expect(t.error?.field == "{activity_id} (path)")
        #expect(t.requests.isEmpty)
    }

    @Test func aStartWithInterruptionLevelAndSubtitleGetsTwoDropFindings() {
        let body = #"{"activity_id":"a","name":"n","event_attributes":{"k":1},"event_updates":{"s":1},"headings":{"en":"h"},"contents":{"en":"c"},"included_segments":["s"],"priority":10,"ios_interruption_level":"active","subtitle":"x"}"#
        let t = dialect.translate(route: startRoute, body: Array(body.utf8), context: TranslationContext(now: 0))
        #expect(t.findings.filter { $0.kind == .dropped }.map(\.field) == ["ios_interruption_level", "subtitle"])
        #expect(t.requests.count == 1)
        #expect(t.requests[0].body["ios_interruption_level"] == nil)
    }
}
