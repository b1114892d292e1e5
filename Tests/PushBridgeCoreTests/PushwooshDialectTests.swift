import Testing
@testable import PushBridgeCore

/// Pushwoosh rendering (every response shape) and a few translation rules inline.
struct PushwooshDialectTests {
    let dialect = PushwooshDialect()
    let startRoute = InboundRoute(dialect: .pushwoosh, kind: .start)
    let updateRoute = InboundRoute(dialect: .pushwoosh, kind: .update)
    let now: Int64 = 1_781_049_600  // 2026-06-10T00:00:00Z

    private func body(_ notification: String) -> [UInt8] {
        Array(#"{"request":{"application":"APP","auth":"SECRET_API_TOKEN","notifications":[\#(notification)]}}"#.utf8)
    }

    private func start(_ extra: String, liveExtra: String = "") -> String {
        #"{"content":"c","title":"t","live_activity_id":"A","live_activity":{"content-state":{"s":1},"attributes-type":"T","attributes":{"k":1}\#(liveExtra)}\#(extra)}"#
    }

    private func json(_ r: DialectResponse) throws -> JSONValue { try JSONParser.parse(r.body) }

    private func translation(ids: Int) -> Translation {
        let reqs = (0..<ids).map { OpenPushRequest(.update(OpenPushUpdate(appId: "APP", activityId: "A\($0)", event: "update"))) }
        return Translation(dialect: .pushwoosh, route: .update, requests: reqs)
    }

    // MARK: rendering

    @Test func successListsEveryMessageIdInOrder() throws {
        let r = dialect.render(results: [.accepted(id: "m1", replayed: false), .scheduled(id: "pb_2")], for: translation(ids: 2))
        #expect(r.status == 200)
        #expect(try json(r) == JSONParser.parse(#"{"status_code":200,"status_message":"OK","response":{"Messages":["m1","pb_2"]}}"#))
        #expect(JSONWriter.string(try json(r)).hasPrefix(#"{"status_code":200,"status_message":"OK","response""#))
    }

    @Test func openPushArgumentRejectionIs210() throws {
        let r = dialect.render(results: [.rejected(status: 400, message: "no device has registered a push-to-start token", retryAfter: nil)], for: translation(ids: 1))
        #expect(r.status == 200)
        #expect(try json(r) == JSONParser.parse(#"{"status_code":210,"status_message":"notifications[0] rejected by OpenPush (400): no device has registered a push-to-start token","response":null}"#))
    }

    @Test func upstreamFailureIs500() throws {
        let r = dialect.render(results: [.failed(message: "timed out after 10 s")], for: translation(ids: 1))
        #expect(r.status == 500)
        #expect(try json(r) == JSONParser.parse(#"{"status_code":500,"status_message":"notifications[0] failed upstream: timed out after 10 s","response":null}"#))
    }

    @Test func upstreamRateLimitIs429WithRetryAfter() throws {
        let r = dialect.render(results: [.rejected(status: 429, message: "slow down", retryAfter: 42)], for: translation(ids: 1))
        #expect(r.status == 429)
        #expect(r.headers.contains { $0 == ("Retry-After", "42") })
        #expect(try json(r).objectValue?["status_code"] == .int(429))
    }

    @Test func partialSuccessNamesEachNotificationAndKeepsTheIdsThatExist() throws {
        let results: [UpstreamResult] = [.accepted(id: "m0", replayed: false), .rejected(status: 404, message: "no live activity with that id is open", retryAfter: nil),
                                         .accepted(id: "m2", replayed: true)]
        let r = dialect.render(results: results, for: translation(ids: 3))
        #expect(r.status == 200)
        let o = try #require(try json(r).objectValue)
        #expect(o["status_code"] == .int(210))
        #expect(o["status_message"] == .string("partially sent: notifications[0] accepted as m0; notifications[1] rejected by OpenPush (404): no live activity with that id is open; notifications[2] accepted as m2"))
        // Messages[i] belongs to notifications[i]: the refused one holds its place with null.
        #expect(o["response"] == .object(["Messages": .array([.string("m0"), .null, .string("m2")])]))
    }

    @Test func partialWithUpstreamFailureIs500AndStillListsIds() throws {
        let r = dialect.render(results: [.accepted(id: "m0", replayed: false), .failed(message: "connection reset")], for: translation(ids: 2))
        #expect(r.status == 500)
        #expect(try json(r).objectValue?["response"] == .object(["Messages": .array([.string("m0"), .null])]))
    }

    @Test(arguments: [
        (ProxyFailure.badRequest(TranslationError(field: "notifications[0].live_activity_id", rule: "is required")), 200, 210, "notifications[0].live_activity_id: is required"),
        (.unauthorized("bad token"), 200, 210, "Access denied or application not found"),
        (.notFound("unknown app"), 200, 210, "Access denied or application not found"),
        (.payloadTooLarge(limit: 65536), 200, 210, "request body is larger than the limit of 65536 bytes"),
        (.rateLimited(retryAfter: 60), 429, 429, "rate limit exceeded; retry after 60 seconds"),
        (.upstream("OpenPush did not answer in time"), 500, 500, "OpenPush did not answer in time"),
        (.internal("audit store unavailable"), 500, 500, "audit store unavailable"),
    ])
    func failures(failure: ProxyFailure, http: Int, code: Int, message: String) throws {
        let r = dialect.render(failure: failure, route: startRoute)
        #expect(r.status == http)
        #expect(try json(r) == .object(["status_code": .int(Int64(code)), "status_message": .string(message), "response": .null]))
        if case .rateLimited = failure { #expect(r.headers.contains { $0 == ("Retry-After", "60") }) } else { #expect(r.headers.isEmpty) }
    }

    @Test func rejectedTranslationRendersAs210() throws {
        let t = dialect.translate(route: startRoute, body: body(start("")), context: TranslationContext(now: now))
        let r = dialect.render(results: [], for: t)
        #expect(try json(r).objectValue?["status_code"] == .int(210))
    }

    // MARK: rules

    @Test(arguments: [("10", 10, nil), ("5", 5, nil), ("7", 5, FindingKind.coerced), ("1", 5, .coerced), ("10.5", 5, .coerced), (nil, 5, .defaulted)] as [(String?, Int64, FindingKind?)])
    func priority(value: String?, sent: Int64, kind: FindingKind?) throws {
        let extra = (value.map { #","apns_priority":\#($0)"# } ?? "") + #","filter":"F""#
        let t = dialect.translate(route: startRoute, body: body(start(extra)), context: TranslationContext(now: now))
        #expect(t.error == nil)
        #expect(t.requests.first?.body["priority"] == .int(sent))
        #expect(t.findings.first { $0.field == "notifications[0].apns_priority" }?.kind == kind)
    }

    @Test(arguments: [("60", "0.6"), ("1", "0.01"), ("100", "1"), ("250", "1"), ("0", "0"), ("-3", "0"), ("33", "0.33")])
    func relevanceIsRescaledNeverRaw(score: String, sent: String) throws {
        let t = dialect.translate(route: updateRoute, body: body(#"{"live_activity_id":"A","live_activity":{"event":"update","content-state":{"s":1},"relevance-score":\#(score)}}"#),
                                  context: TranslationContext(now: now))
        #expect(t.requests.first?.body["ios_relevance_score"]?.numberValue?.literal == sent)
        #expect(t.findings.contains { $0.kind == .rescaled })
        #expect(t.requests.allSatisfy { $0.violations.isEmpty })
    }

    @Test(arguments: [(2_000, nil), (2_001, FindingKind.caveat), (20_000, .caveat), (20_001, .rejected)] as [(Int, FindingKind?)])
    func fanOutLimits(count: Int, kind: FindingKind?) {
        let users = (0..<count).map { #""u\#($0)""# }.joined(separator: ",")
        let t = dialect.translate(route: startRoute, body: body(start(#","users":[\#(users)]"#)), context: TranslationContext(now: now))
        let f = t.findings.first { $0.field == "notifications[0].users" && $0.kind != .renamed }
        #expect(f?.kind == kind)
        #expect((t.error != nil) == (kind == .rejected))
    }

    @Test(arguments: [
        ("2026-06-16 16:00", "UTC", Int64?(1_781_625_600)),
        ("2026-06-16 16:00", "America/New_York", 1_781_640_000),  // EDT, UTC−4
        ("2026-06-10 00:00", "Asia/Tokyo", nil),                   // 2026-06-09T15:00Z: passed, inside the grace → now
        ("now", "Europe/Madrid", nil),
    ])
    func sendDates(date: String, zone: String, at: Int64?) {
        let t = dialect.translate(route: startRoute, body: body(start(#","filter":"F","send_date":"\#(date)","timezone":"\#(zone)""#)), context: TranslationContext(now: now))
        #expect(t.error == nil)
        #expect(t.requests.first?.sendAt?.unixSeconds == at)
        #expect(t.schedule?.first?.time.timezone == (at == nil ? nil : zone))
    }

    @Test func authNeverAppearsInFindingsOrErrors() {
        let secret = "SECRET_API_TOKEN"
        for b in [body(start(#","filter":"F","x":1"#)), body(start("")), Array(#"{"request":{"auth":"SECRET_API_TOKEN"}}"#.utf8)] {
            let text = JSONWriter.string(dialect.translate(route: startRoute, body: b, context: TranslationContext(now: now)).json)
            #expect(!text.contains(secret))
        }
    }

    @Test func deviceTargetingFollowsConfiguration() {
        var c = TranslationContext(now: now)
        c.deviceTargeting = .alias("pw_token")
        c.deviceTargetingConfigured = true
        let t = dialect.translate(route: startRoute, body: body(start(#","devices":["tok1"]"#)), context: c)
        #expect(t.requests.first?.body["include_aliases"] == .object(["pw_token": .array([.string("tok1")])]))
        #expect(t.findings.contains { $0.field == "notifications[0].devices" && $0.kind == .renamed })
    }

    @Test func everyRouteFieldIsInTheMappingTable() {
        let fields = Set(dialect.fieldMappings.map { "\($0.route.rawValue) \($0.field)" })
        for key in ["content", "title", "subtitle", "ios_sound", "apns_priority", "live_activity_id", "filter", "filter_code", "devices", "users", "send_date", "timezone",
                    "live_activity.event", "live_activity.title", "live_activity.content-state", "live_activity.relevance-score", "live_activity.stale-date",
                    "live_activity.dismissal-date", "live_activity.attributes", "live_activity.attributes-type"] {
            #expect(fields.contains("start notifications[].\(key)"), "start \(key)")
            #expect(fields.contains("update notifications[].\(key)"), "update \(key)")
        }
    }
}
