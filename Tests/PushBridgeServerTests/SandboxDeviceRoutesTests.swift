import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxDeviceRoutesTests {
    typealias H = SandboxHarness
    static let tokenRule = "token: must be a hex APNs token of even length, 64–512 characters"

    func register(_ h: H, _ body: String) async -> Reply {
        await h.send("/v1/apps/\(H.app)/live-activities", body, headers: [])
    }

    @Test(arguments: Transport.all) func registeringForAnUnregisteredDeviceIs404(_ t: Transport) async throws {
        let h = try H(t)
        let r = await register(h, "{\"device_token\": \"\(H.token(999))\", \"activity_id\": \"x\", \"activity_type\": \"T\", \"token\": \"\(H.token(1))\"}")
        #expect(r.status == 404)
        #expect(r.errors == ["device: the device's push token is not registered on this app — register the device first"])
    }

    @Test(arguments: Transport.all, ["abc", String(repeating: "zz", count: 32), String(repeating: "a", count: 65), String(repeating: "ab", count: 257)])
    func updateTokenMustBeValidHex(_ t: Transport, _ token: String) async throws {
        let h = try H(t)
        let r = await register(h, "{\"subscription_id\": \"sub_0\", \"activity_id\": \"x\", \"activity_type\": \"T\", \"token\": \"\(token)\"}")
        #expect(r.status == 400)
        #expect(r.errors == [Self.tokenRule])
    }

    @Test(arguments: Transport.all) func staleAtIsClampedIntoTheActiveWindow(_ t: Transport) async throws {
        let h = try H(t)
        let r = await register(h, "{\"subscription_id\": \"sub_0\", \"activity_id\": \"x\", \"activity_type\": \"T\", \"token\": \"\(H.token(1))\", \"stale_at\": \(H.t0 + 86_400)}")
        #expect(r.status == 201)
        #expect(r.json["stale_at"] == .int(H.t0 + 8 * 3600))
    }

    @Test(arguments: Transport.all) func reRegisteringClearsTheEndMarker(_ t: Transport) async throws {
        let h = try H(t)
        let body = "{\"subscription_id\": \"sub_0\", \"activity_id\": \"x\", \"activity_type\": \"T\", \"token\": \"\(H.token(1))\"}"
        _ = await register(h, body)
        #expect(await h.send("/v1/apps/\(H.app)/live-activities/x/end", "{\"subscription_id\": \"sub_0\"}", headers: []).status == 200)
        #expect(await h.notify("x", H.updateBody()).status == 404)
        #expect(await register(h, body).status == 200)
        #expect(await h.notify("x", H.updateBody()).status == 201)
    }

    @Test(arguments: Transport.all) func deviceEndOnlyAffectsTheCallingDevice(_ t: Transport) async throws {
        let h = try H(t, devices: 2)
        _ = await h.start(H.startBody())
        let end = await h.send("/v1/apps/\(H.app)/live-activities/order_88214/end", "{\"device_token\": \"\(H.token(0))\"}", headers: [])
        #expect(end.status == 200)
        #expect(await h.notify("order_88214", H.updateBody()).status == 201)
        #expect(h.sends[1]["reached"] == .int(1))
        #expect(h.sends[1].at("deliveries", 0, "subscription_id") == .string("sub_1"))
    }

    @Test(arguments: Transport.all) func pushToStartRegistrationValidatesAndRemoves(_ t: Transport) async throws {
        let h = try H(t)
        let p = "/v1/apps/\(H.app)/live-activities/push-to-start"
        let bad = await h.send(p, "{\"subscription_id\": \"sub_0\", \"activity_type\": \"ScoreAttributes\", \"token\": \"xyz\"}", headers: [])
        #expect(bad.status == 400)
        #expect(bad.errors == [Self.tokenRule])
        let unknown = await h.send(p, "{\"subscription_id\": \"sub_nope\", \"activity_type\": \"ScoreAttributes\", \"token\": \"\(H.token(3))\"}", headers: [])
        #expect(unknown.status == 404)
        #expect(await h.send(p, "{\"subscription_id\": \"sub_0\", \"activity_type\": \"ScoreAttributes\", \"token\": \"\(H.token(3))\"}", headers: []).status == 201)
        #expect(await h.start(H.startBody(), type: "ScoreAttributes").status == 201)
        let removed = await h.send(p + "/remove", "{\"subscription_id\": \"sub_0\", \"activity_type\": \"ScoreAttributes\"}", headers: [])
        #expect(removed.json["removed"] == .bool(true))
        #expect(await h.start(H.startBody(["activity_id": "\"o2\""]), type: "ScoreAttributes").status == 400)
    }

    @Test(arguments: Transport.all) func retiringOrSupersedingClosesActivities(_ t: Transport) async throws {
        let h = try H(t, devices: 2)
        _ = await h.start(H.startBody())
        #expect(await h.send("/v1/apps/\(H.app)/devices/sub_0/retire", "{}", headers: []).status == 200)
        _ = await h.send("/v1/apps/\(H.app)/devices", "{\"subscription_id\": \"sub_1\", \"push_token\": \"\(H.token(555))\"}", headers: [])
        #expect(await h.notify("order_88214", H.updateBody()).status == 404)
    }

    @Test(arguments: Transport.all) func deviceRegistrationValidatesThePushToken(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.send("/v1/apps/\(H.app)/devices", "{\"push_token\": \"nothex\"}", headers: [])
        #expect(r.status == 400)
        #expect(r.errors == ["push_token: must be a hex APNs token of even length, 64–512 characters"])
        let ok = await h.send("/v1/apps/\(H.app)/devices", "{\"push_token\": \"\(H.token(12))\"}", headers: [])
        #expect(ok.status == 201)
        #expect(ok.json["subscription_id"]?.stringValue?.hasPrefix("sub_") == true)
    }

    @Test(arguments: Transport.all) func clockRouteMovesTheClock(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.send("/_sandbox/clock", "{\"advance_seconds\": 90}", headers: [])
        #expect(r.json["now"] == .int(H.t0 + 90))
        #expect(h.clock.now == H.t0 + 90)
        #expect(await h.send("/_sandbox/clock", method: "GET", headers: []).json["now"] == .int(H.t0 + 90))
    }

    @Test(arguments: Transport.all) func unknownRoutesAndMethods(_ t: Transport) async throws {
        let h = try H(t)
        #expect(await h.send("/nope", "{}").status == 404)
        #expect(await h.send("/apps/\(H.app)/activities/activity/T", method: "GET").status == 405)
    }
}
