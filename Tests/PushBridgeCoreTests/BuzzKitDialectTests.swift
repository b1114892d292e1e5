import Testing
@testable import PushBridgeCore

/// BuzzKit: response shapes, ISO 8601 edge cases, and inline translation rules.
struct BuzzKitDialectTests {
    let dialect = BuzzKitDialect()
    let route = InboundRoute(dialect: .buzzkit, kind: .send)

    func translate(_ json: String, requestId: String? = "req-1") -> Translation {
        dialect.translate(route: route, body: Array(json.utf8), context: TranslationContext(now: 1_781_049_600, requestId: requestId))
    }

    func body(_ r: DialectResponse) throws -> JSONObject {
        try #require(try JSONParser.parse(r.body).objectValue)
    }

    func header(_ r: DialectResponse, _ name: String) -> String? {
        r.headers.first { $0.0 == name }?.1
    }

    // MARK: responses

    @Test func successOnStartReturnsTheSynthesizedActivityId() throws {
        let t = translate(#"{"to":"u","event":"start","attributesType":"T","attributes":{"a":1},"contentState":{"s":0}}"#)
        let r = dialect.render(results: [.accepted(id: "msg_1", replayed: false)], for: t)
        #expect(r.status == 200)
        #expect(try body(r) == ["id": .string("msg_1"), "event": .string("start"), "activityId": .string("bk_req-1"),
                                "results": .array([]), "resultsAvailable": .bool(false)])
    }

    @Test func successOnUpdateAndReplayHaveTheSameShape() throws {
        let t = translate(#"{"event":"end","activityId":"m_1","contentState":{"s":3}}"#)
        for result in [UpstreamResult.accepted(id: "msg_2", replayed: false), .accepted(id: "msg_2", replayed: true)] {
            let r = dialect.render(results: [result], for: t)
            #expect(r.status == 200)
            #expect(try body(r) == ["id": .string("msg_2"), "event": .string("end"), "activityId": .string("m_1"),
                                    "results": .array([]), "resultsAvailable": .bool(false)])
        }
    }

    @Test func openPushRejectionKeepsStatusMessageAndRetryAfter() throws {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":3}}"#)
        let notFound = dialect.render(results: [.rejected(status: 404, message: "no live activity with that id is open", retryAfter: nil)], for: t)
        #expect(notFound.status == 404)
        #expect(try body(notFound) == ["error": .object(["code": .string("not_found"), "message": .string("no live activity with that id is open")])])
        let limited = dialect.render(results: [.rejected(status: 429, message: "slow down", retryAfter: 60)], for: t)
        #expect(limited.status == 429)
        #expect(header(limited, "Retry-After") == "60")
        #expect(try body(limited)["error"]?.objectValue?["code"] == .string("rate_limited"))
    }

    @Test func upstreamFailureAndServerErrorsAre502() throws {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":3}}"#)
        for result in [UpstreamResult.failed(message: "timed out"), .rejected(status: 503, message: "down", retryAfter: nil)] {
            let r = dialect.render(results: [result], for: t)
            #expect(r.status == 502)
            #expect(try body(r)["error"]?.objectValue?["code"] == .string("upstream_error"))
        }
    }

    @Test func aRejectedTranslationRendersAs400() throws {
        let t = translate(#"{"event":"update","contentState":{"s":3}}"#)
        let r = dialect.render(results: [], for: t)
        #expect(r.status == 400)
        let error = try #require(try body(r)["error"]?.objectValue)
        #expect(error["code"] == .string("invalid_request"))
        #expect(error["message"]?.stringValue?.hasPrefix("activityId: is required") == true)
    }

    @Test(arguments: [
        (ProxyFailure.badRequest(TranslationError(field: "to", rule: "is required")), 400, "invalid_request", "to: is required"),
        (.unauthorized("missing bearer token"), 401, "unauthorized", "missing bearer token"),
        (.notFound("unknown workspace"), 404, "not_found", "unknown workspace"),
        (.payloadTooLarge(limit: 65536), 413, "payload_too_large", "request body is larger than the limit of 65536 bytes"),
        (.rateLimited(retryAfter: 30), 429, "rate_limited", "rate limit exceeded; retry after 30 seconds"),
        (.upstream("OpenPush timed out"), 502, "upstream_error", "OpenPush timed out"),
        (.internal("audit queue full"), 500, "internal_error", "audit queue full"),
    ])
    func failuresRenderInBuzzKitShape(failure: ProxyFailure, status: Int, code: String, message: String) throws {
        let r = dialect.render(failure: failure, route: route)
        #expect(r.status == status)
        #expect(try body(r) == ["error": .object(["code": .string(code), "message": .string(message)])])
        #expect(header(r, "Retry-After") == (status == 429 ? "30" : nil))
    }

    // MARK: ISO 8601

    @Test(arguments: [
        ("2026-09-03T21:00:00.000Z", Int64(1_788_469_200)),
        ("2026-09-03T21:00:00Z", 1_788_469_200),
        ("2026-09-03t21:00:00z", 1_788_469_200),
        ("2026-09-03 21:00:00Z", 1_788_469_200),
        ("2026-09-03T23:00:00+02:00", 1_788_469_200),
        ("2026-09-03T16:30:00-04:30", 1_788_469_200),
        ("2026-09-03T21:00:00.999999Z", 1_788_469_200),
        ("2028-02-29T00:00:00Z", 1_835_395_200),
        ("1970-01-01T00:00:00Z", 0),
    ])
    func isoDatesParse(text: String, seconds: Int64) {
        #expect(TimestampConversion.unixSeconds(iso: text) == seconds)
    }

    @Test(arguments: [
        "", "2026-09-03", "2026-09-03T21:00:00", "2026-09-03T21:00Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-09-03T24:00:00Z", "2026-09-03T21:00:00.Z", "2026-09-03T21:00:00+0200", "2026-09-03T21:00:00 Z",
        "1788469200", "2026-09-03T21:00:00Z ", "next tuesday",
    ])
    func invalidIsoDatesAreRejectedNamingTheField(text: String) {
        #expect(TimestampConversion.unixSeconds(iso: text) == nil)
        let t = translate(#"{"event":"end","activityId":"m_1","contentState":{"s":1},"dismissalDate":"\#(text)"}"#)
        #expect(t.error?.field == "dismissalDate")
        #expect(t.requests.isEmpty)
    }

    @Test(arguments: [("2026-09-03T21:00:00.500Z", true), ("2026-09-03T21:00:00.000Z", false), ("2026-09-03T21:00:00Z", false)])
    func fractionTruncationIsAWarningOnlyWhenSomethingIsLost(text: String, lossy: Bool) throws {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":1},"staleDate":"\#(text)"}"#)
        let f = try #require(t.findings.first { $0.field == "staleDate" })
        #expect(f.kind == .converted)
        #expect(f.severity == (lossy ? .warning : .info))
        #expect(t.requests.first?.body["stale_date"] == .int(1_788_469_200))
    }

    // MARK: inline rules

    @Test(arguments: [(#""high""#, Int64(10)), (#""normal""#, 5)])
    func priorityWords(value: String, expected: Int64) {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":1},"priority":\#(value)}"#)
        #expect(t.requests.first?.body["priority"] == .int(expected))
        #expect(!t.findings.contains { $0.field == "priority" })
    }

    @Test(arguments: [#""HIGH""#, #""low""#, "10", "5", "true", #""""#])
    func anyOtherPriorityIsRejected(value: String) {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":1},"priority":\#(value)}"#)
        #expect(t.error?.field == "priority")
    }

    @Test(arguments: ["update", "end", "start"])
    func absentPriorityIsDefaultedToHigh(event: String) {
        let t = translate(#"{"to":"u","event":"\#(event)","activityId":"m_1","attributesType":"T","attributes":{"a":1},"contentState":{"s":1}}"#)
        #expect(t.requests.first?.body["priority"] == .int(10))
        #expect(t.findings.contains { $0.field == "priority" && $0.kind == .defaulted })
    }

    @Test(arguments: [
        (#"{"title":"Goal"}"#, "Goal", "Goal", "alert.body"),
        (#"{"body":"2-1"}"#, "2-1", "2-1", "alert.title"),
        (#"{"title":"  ","body":"2-1"}"#, "2-1", "2-1", "alert.title"),
        (#"{"title":"Goal","body":"2-1"}"#, "Goal", "2-1", nil),
    ])
    func aMissingAlertHalfIsSynthesizedFromTheOtherOnAStart(alert: String, heading: String, content: String, synthesized: String?) {
        let t = translate(#"{"to":"u","event":"start","attributesType":"T","attributes":{"a":1},"contentState":{"s":1},"alert":\#(alert)}"#)
        let b = t.requests.first?.body
        #expect(b?["headings"] == .object(["en": .string(heading)]))
        #expect(b?["contents"] == .object(["en": .string(content)]))
        #expect(t.findings.filter { $0.kind == .synthesized && $0.field.hasPrefix("alert") }.map(\.field) == (synthesized.map { [$0] } ?? []))
    }

    @Test(arguments: [
        (#"{"title":"Goal"}"#, "Goal" as String?, nil as String?),
        (#"{"body":"2-1"}"#, nil, "2-1"),
        (#"{"title":"  ","body":"2-1"}"#, nil, "2-1"),
        (#"{"title":"Goal","body":"2-1"}"#, "Goal", "2-1"),
    ])
    func anUpdateSendsExactlyTheAlertTextGiven(alert: String, heading: String?, content: String?) {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":1},"alert":\#(alert)}"#)
        let b = t.requests.first?.body
        #expect(b?["headings"] == heading.map { .object(["en": .string($0)]) })
        #expect(b?["contents"] == content.map { .object(["en": .string($0)]) })
        #expect(!t.findings.contains { $0.kind == .synthesized && $0.field.hasPrefix("alert") })
    }

    @Test func anUpdateWithoutAlertTextSendsNoHeadings() {
        let t = translate(#"{"event":"update","activityId":"m_1","contentState":{"s":1},"alert":{"sound":"ding.caf"}}"#)
        let b = t.requests.first?.body
        #expect(b?["headings"] == nil && b?["contents"] == nil)
        #expect(b?["ios_sound"] == .string("ding.caf"))
    }

    @Test func aStartWithoutAlertSynthesizesBothAsAWarning() throws {
        let t = translate(#"{"to":"u","event":"start","attributesType":"MatchAttributes","attributes":{"a":1},"contentState":{"s":0}}"#)
        let f = try #require(t.findings.first { $0.field == "alert" })
        #expect(f.kind == .synthesized && f.severity == .warning)
        #expect(t.requests.first?.body["headings"] == .object(["en": .string("MatchAttributes")]))
    }

    @Test(arguments: [(Optional("req/7"), "bk_req_7"), (nil, "bk_")])
    func startIdsAreSynthesizedWithACaveat(requestId: String?, prefix: String) throws {
        let json = #"{"to":"u","event":"start","attributesType":"T","attributes":{"a":1},"contentState":{"s":0}}"#
        let t = translate(json, requestId: requestId)
        let id = try #require(t.requests.first?.activityId)
        #expect(id.hasPrefix(prefix))
        #expect(!id.contains("/"))
        #expect(t.findings.contains { $0.field == "activityId" && $0.kind == .caveat && $0.message.contains(id) })
        if requestId == nil {
            #expect(id == "bk_" + BuzzKitIds.fnv1a64Hex(Array(json.utf8)))
            #expect(translate(json, requestId: nil).requests.first?.activityId == id)
        }
    }

    @Test func fnv1aMatchesTheReferenceVectors() {
        #expect(BuzzKitIds.fnv1a64Hex([]) == "cbf29ce484222325")
        #expect(BuzzKitIds.fnv1a64Hex(Array("a".utf8)) == "af63dc4c8601ec8c")
        #expect(BuzzKitIds.fnv1a64Hex(Array("foobar".utf8)) == "85944171f73967e8")
    }

    @Test func aLongSubscriberIdKeepsTheNameWithin128() {
        let to = String(repeating: "x", count: 300)
        let t = translate(#"{"to":"\#(to)","event":"start","attributesType":"T","attributes":{"a":1},"contentState":{"s":0}}"#)
        #expect(t.requests.first?.body["name"]?.stringValue?.count == 128)
        #expect(t.requests.first?.violations == [])
    }

    @Test func everyTranslationCarriesThePerTokenCaveat() {
        for json in [#"{"event":"update","activityId":"m_1","contentState":{"s":1}}"#, "[]", #"{"event":"nope"}"#] {
            #expect(translate(json).findings.contains { $0.kind == .caveat && $0.field == "results (response)" })
        }
    }

    @Test func everyDocumentedFieldHasARow() {
        let fields = dialect.fieldMappings.map(\.field)
        for name in ["to", "event", "activityId", "attributesType", "contentState", "attributes", "alert.title", "alert.body",
                     "alert.sound", "staleDate", "dismissalDate", "priority", "timestamp"] {
            #expect(fields.contains { $0 == name || $0.hasPrefix(name + " (") }, "\(name) has no mapping row")
        }
        #expect(dialect.fieldMappings.allSatisfy { $0.route == .send })
    }
}
