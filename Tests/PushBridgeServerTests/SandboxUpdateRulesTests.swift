import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxUpdateRulesTests {
    typealias H = SandboxHarness
    static let notOpen = "no live activity with that id is open on this app — an activity that has ended can never be updated again"

    /// A harness with `order_88214` started (the simulated device registered its update token).
    static func started(_ t: Transport, devices: Int = 1) async throws -> H {
        let h = try H(t, devices: devices)
        let r = await h.start(H.startBody())
        #expect(r.status == 201)
        return h
    }

    static let cases: [(String, String?, String)] = [
        ("event", "\"start\"", "event: must be \"update\" or \"end\""),
        ("event", nil, "event: must be \"update\" or \"end\""),
        ("event_updates", nil, "event_updates: is required"),
        ("event_updates", "{}", "event_updates: must be a non-empty object"),
        ("name", nil, "name: is required and must be non-blank"),
        ("name", "\"\(String(repeating: "n", count: 129))\"", "name: must be at most 128 characters"),
        ("contents", "{\"en\": \" \"}", "contents.en: must be present and non-blank"),
        ("headings", "{\"de\": \"Fast da\"}", "headings.en: must be present and non-blank"),
        ("stale_date", "1767225600000", "stale_date: must be Unix seconds; a value ≥ 1e11 is rejected as milliseconds"),
        ("dismissal_date", "1767229200", "dismissal_date: is only valid on end"),
        ("priority", "1", "priority: must be exactly 5 or 10"),
        ("ios_relevance_score", "-0.1", "ios_relevance_score: must be in [0, 1]"),
    ]

    @Test(arguments: Transport.all, 0..<cases.count)
    func eachFieldRuleIs400NamingTheField(_ t: Transport, _ i: Int) async throws {
        let (field, value, message) = Self.cases[i]
        let h = try await Self.started(t)
        let r = await h.notify("order_88214", H.updateBody([field: value]))
        #expect(r.status == 400)
        #expect(r.errors.contains(message), "\(field): \(r.errors)")
    }

    @Test(arguments: Transport.all) func contentsAndHeadingsAreOptional(_ t: Transport) async throws {
        let h = try await Self.started(t)
        let r = await h.notify("order_88214", H.updateBody(["contents": nil, "headings": nil]))
        #expect(r.status == 201)
        #expect(r.json.keys == ["id"])
        #expect(r.json["id"]?.stringValue?.hasPrefix("msg_") == true)
    }

    @Test(arguments: Transport.all) func unknownIdIs404WithTheDocumentedText(_ t: Transport) async throws {
        let h = try await Self.started(t)
        let r = await h.notify("order_nope", H.updateBody())
        #expect(r.status == 404)
        #expect(r.errors == [Self.notOpen])
    }

    @Test(arguments: Transport.all) func endedIsFinal(_ t: Transport) async throws {
        let h = try await Self.started(t)
        #expect(await h.notify("order_88214", H.updateBody(["event": "\"end\""])).status == 201)
        let again = await h.notify("order_88214", H.updateBody())
        #expect(again.status == 404)
        #expect(again.errors == [Self.notOpen])
        #expect(await h.notify("order_88214", H.updateBody(["event": "\"end\""])).status == 404)
    }

    @Test(arguments: Transport.all) func idUnderTwoActivityTypesIs400(_ t: Transport) async throws {
        let h = try H(t, devices: 1)
        _ = await h.send("/v1/apps/\(H.app)/devices", "{\"subscription_id\": \"sub_b\", \"push_token\": \"\(H.token(7))\"}", headers: [])
        _ = await h.send("/v1/apps/\(H.app)/live-activities/push-to-start",
                         "{\"subscription_id\": \"sub_b\", \"activity_type\": \"ScoreAttributes\", \"token\": \"\(H.token(8))\"}", headers: [])
        #expect(await h.start(H.startBody()).status == 201)
        #expect(await h.start(H.startBody(["included_segments": nil, "include_subscription_ids": "[\"sub_b\"]"]), type: "ScoreAttributes").status == 201)
        let r = await h.notify("order_88214", H.updateBody())
        #expect(r.status == 400)
        #expect(r.errors == ["activity_id: is registered under more than one activity type (DeliveryAttributes, ScoreAttributes)"])
    }

    @Test(arguments: Transport.all) func updateTargetsForEightHoursFromRegistration(_ t: Transport) async throws {
        let h = try await Self.started(t)
        h.clock.advance(by: 8 * 3600 - 1)
        #expect(await h.notify("order_88214", H.updateBody()).status == 201)
        h.clock.advance(by: 1)
        let r = await h.notify("order_88214", H.updateBody())
        #expect(r.status == 404)
        #expect(r.errors == [Self.notOpen])
    }

    @Test(arguments: Transport.all) func endTargetsForFourHoursMore(_ t: Transport) async throws {
        let h = try await Self.started(t)
        h.clock.advance(by: 12 * 3600 - 1)
        #expect(await h.notify("order_88214", H.updateBody()).status == 404)
        #expect(await h.notify("order_88214", H.updateBody(["event": "\"end\""])).status == 201)
    }

    @Test(arguments: Transport.all) func nothingTargetsAfterTwelveHours(_ t: Transport) async throws {
        let h = try await Self.started(t)
        h.clock.advance(by: 12 * 3600)
        #expect(await h.notify("order_88214", H.updateBody(["event": "\"end\""])).status == 404)
    }

    @Test(arguments: Transport.all) func reRegisteringDoesNotExtendTheWindow(_ t: Transport) async throws {
        let h = try await Self.started(t)
        h.clock.advance(by: 7 * 3600)
        let body = "{\"subscription_id\": \"sub_0\", \"activity_id\": \"order_88214\", \"activity_type\": \"\(H.type)\", \"token\": \"\(H.token(42))\"}"
        let re = await h.send("/v1/apps/\(H.app)/live-activities", body, headers: [])
        #expect(re.status == 200)
        #expect(re.json["started_at"] == .int(H.t0))
        h.clock.advance(by: 3600)
        #expect(await h.notify("order_88214", H.updateBody()).status == 404)
    }

    @Test(arguments: Transport.all) func windowsCountFromRegistrationNotFromTheStart(_ t: Transport) async throws {
        let h = try H(t)
        h.clock.advance(by: 3600)
        let body = "{\"device_token\": \"\(H.token(0))\", \"activity_id\": \"local_1\", \"activity_type\": \"\(H.type)\", \"token\": \"\(H.token(9))\"}"
        #expect(await h.send("/v1/apps/\(H.app)/live-activities", body, headers: []).status == 201)
        h.clock.advance(by: 8 * 3600 - 1)
        #expect(await h.notify("local_1", H.updateBody()).status == 201)
    }
}
