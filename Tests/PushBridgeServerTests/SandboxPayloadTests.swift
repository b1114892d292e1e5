import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxPayloadTests {
    typealias H = SandboxHarness

    @Test(arguments: Transport.all) func startPayloadIsShapedAsOpenPushWouldSendIt(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody(["priority": nil, "ios_relevance_score": "0.25", "sound": "\"chime.caf\"", "ios_sound": "\" \""]))
        let d = try #require(h.sends.first?.at("deliveries", 0)?.objectValue)
        #expect(d.at("headers", "apns-push-type") == .string("liveactivity"))
        #expect(d.at("headers", "apns-topic") == .string("com.example.bakery.push-type.liveactivity"))
        #expect(d.at("headers", "apns-priority") == .string("10"))
        #expect(d.at("headers", "apns-expiration") == .string(String(H.t0 + 86_400)))
        let aps = try #require(d.at("payload", "aps")?.objectValue)
        #expect(aps["timestamp"] == .int(H.t0))
        #expect(aps["event"] == .string("start"))
        #expect(aps["content-state"] == .object(["stage": .string("out_for_delivery"), "etaMinutes": .int(22)]))
        #expect(aps["attributes-type"] == .string(H.type))
        #expect(aps["attributes"] == .object(["orderNumber": .string("88214"), "storeName": .string("Bakery on Main")]))
        #expect(aps["input-push-token"] == .int(1))
        #expect(aps["alert"] == .object(["title": .string("On the way"), "body": .string("Arriving in about 22 minutes"), "sound": .string("chime.caf")]))
        #expect(aps["relevance-score"]?.numberValue?.doubleValue == 0.25)
        #expect(aps["dismissal-date"] == nil)
        #expect(d["token"] == .string(Fingerprint.of(H.token(100_000))))
        #expect(d["token_kind"] == .string("push_to_start"))
    }

    @Test(arguments: Transport.all) func interruptionLevelLeavesNoTrace(_ t: Transport) async throws {
        let h = try H(t)
        let r = await h.start(H.startBody(["ios_interruption_level": "\"critical\""]))
        #expect(r.status == 201)
        let text = JSONWriter.string(.object(h.sends[0]))
        #expect(!text.contains("interruption"))
        #expect(!text.contains("critical"))
    }

    @Test(arguments: Transport.all) func updateDefaultsToPriorityFiveAndExplicitWins(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody())
        _ = await h.notify("order_88214", H.updateBody())
        _ = await h.notify("order_88214", H.updateBody(["priority": "10"]))
        _ = await h.notify("order_88214", H.updateBody(["event": "\"end\""]))
        #expect(h.sends[1].at("deliveries", 0, "headers", "apns-priority") == .string("5"))
        #expect(h.sends[2].at("deliveries", 0, "headers", "apns-priority") == .string("10"))
        #expect(h.sends[3].at("deliveries", 0, "headers", "apns-priority") == .string("10"))
        #expect(h.sends[1].at("deliveries", 0, "payload", "aps", "attributes-type") == nil)
        #expect(h.sends[1].at("deliveries", 0, "payload", "aps", "input-push-token") == nil)
        #expect(h.sends[1].at("deliveries", 0, "token_kind") == .string("update"))
    }

    @Test(arguments: Transport.all) func dismissalDateOnlyOnEnd(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody())
        _ = await h.notify("order_88214", H.updateBody(["event": "\"end\"", "dismissal_date": String(H.t0 + 600)]))
        #expect(h.sends[1].at("deliveries", 0, "payload", "aps", "dismissal-date") == .int(H.t0 + 600))
        #expect(h.sends[1].at("deliveries", 0, "payload", "aps", "event") == .string("end"))
    }

    @Test(arguments: Transport.all) func staleDateIsInjectedFromRegistrationWhenOmitted(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody())
        h.clock.advance(by: 60)
        _ = await h.notify("order_88214", H.updateBody())
        _ = await h.notify("order_88214", H.updateBody(["stale_date": String(H.t0 + 120)]))
        #expect(h.sends[1].at("deliveries", 0, "payload", "aps", "stale-date") == .int(H.t0 + 8 * 3600))
        #expect(h.sends[2].at("deliveries", 0, "payload", "aps", "stale-date") == .int(H.t0 + 120))
        #expect(h.sends[2].at("deliveries", 0, "payload", "aps", "timestamp") == .int(H.t0 + 60))
    }

    @Test(arguments: Transport.all) func startInjectsTheRegisteredStaleTimeWhenOneExists(_ t: Transport) async throws {
        let h = try H(t)
        #expect(await h.start(H.startBody()).status == 201)
        #expect(h.sends[0].at("deliveries", 0, "payload", "aps", "stale-date") == nil)
        h.clock.advance(by: 600)
        #expect(await h.start(H.startBody()).status == 201)
        #expect(h.sends[1].at("deliveries", 0, "payload", "aps", "stale-date") == .int(H.t0 + 8 * 3600))
    }

    @Test(arguments: Transport.all) func alertCopyIsCapped(_ t: Transport) async throws {
        let h = try H(t)
        let title = String(repeating: "t", count: 600), body = String(repeating: "b", count: 2_100)
        _ = await h.start(H.startBody(["headings": "{\"en\": \"\(title)\"}", "contents": "{\"en\": \"\(body)\"}"]))
        let alert = h.sends[0].at("deliveries", 0, "payload", "aps", "alert")?.objectValue
        #expect(alert?["title"]?.stringValue?.count == 512)
        #expect(alert?["body"]?.stringValue?.count == 2_048)
    }

    @Test(arguments: Transport.all) func everyAPNsRequestHasADistinctId(_ t: Transport) async throws {
        let h = try H(t, devices: 3)
        _ = await h.start(H.startBody())
        _ = await h.notify("order_88214", H.updateBody())
        let ids = h.sends.flatMap { $0["deliveries"]?.arrayValue ?? [] }.compactMap { $0.objectValue?.at("headers", "apns-id")?.stringValue }
        #expect(ids.count == 6)
        #expect(Set(ids).count == 6)
    }

    @Test(arguments: Transport.all) func sendsRouteListsAcceptedSendsPerApp(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody())
        let all = await h.send("/_sandbox/sends", method: "GET", headers: [])
        #expect(all.json["sends"]?.arrayValue?.count == 1)
        let other = await h.send("/_sandbox/sends?app_id=app_other", method: "GET", headers: [])
        #expect(other.json["sends"]?.arrayValue?.count == 0)
        #expect(!JSONWriter.string(.object(all.json)).contains(H.token(0)))
    }
}
