import Testing
import PushBridgeCore
import PushBridgeServer

struct SandboxLimitsTests {
    typealias H = SandboxHarness

    @Test(arguments: Transport.all) func sixtyFirstRequestInSixtySecondsIs429(_ t: Transport) async throws {
        let h = try H(t)
        for i in 0..<60 {
            let r = await h.start(H.startBody(["activity_id": "\"a\(i)\""]))
            #expect(r.status == 201)
        }
        let r = await h.notify("a0", H.updateBody())
        #expect(r.status == 429)
        #expect(r.header("Retry-After") == "60")
        #expect(r.errors == ["rate_limit: at most 60 requests per 60 seconds per app on the sending routes"])
        // Another app has its own window; device routes are not limited.
        #expect(await h.start(H.startBody(), app: "app_other", headers: [("X-OP-API-Key", "rk_other")]).status != 429)
        let reg = "{\"subscription_id\": \"sub_0\", \"activity_type\": \"X\", \"token\": \"\(H.token(5))\"}"
        #expect(await h.send("/v1/apps/\(H.app)/live-activities/push-to-start", reg, headers: []).status == 201)
        h.clock.advance(by: 60)
        #expect(await h.notify("a0", H.updateBody()).status == 201)
    }

    @Test(arguments: Transport.all) func rejectedRequestsCountTowardTheLimit(_ t: Transport) async throws {
        let h = try H(t)
        for _ in 0..<60 { _ = await h.start("{}") }
        #expect(await h.start(H.startBody()).status == 429)
    }

    @Test(arguments: Transport.all) func idempotentReplayReturnsTheFirstIdWithoutSending(_ t: Transport) async throws {
        let h = try H(t)
        let body = H.startBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\""])
        let first = await h.start(body)
        #expect(first.status == 201)
        #expect(first.header("Idempotent-Replayed") == nil)
        h.clock.advance(by: 30 * 24 * 3600 - 1)
        let replay = await h.start(body)
        #expect(replay.status == 201)
        #expect(replay.json["notification_id"] == first.json["notification_id"])
        #expect(replay.header("Idempotent-Replayed") == "true")
        #expect(h.sends.count == 1)
    }

    @Test(arguments: Transport.all) func idempotencyExpiresAfterThirtyDays(_ t: Transport) async throws {
        let h = try H(t)
        let body = H.startBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\""])
        let first = await h.start(body)
        h.clock.advance(by: 30 * 24 * 3600)
        let later = await h.start(body)
        #expect(later.status == 201)
        #expect(later.json["notification_id"] != first.json["notification_id"])
        #expect(later.header("Idempotent-Replayed") == nil)
        #expect(h.sends.count == 2)
    }

    @Test(arguments: Transport.all) func idempotencyKeysAreScopedPerApp(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.send("/v1/apps/app_other/devices", "{\"subscription_id\": \"o1\", \"push_token\": \"\(H.token(77))\", \"segments\": [\"\(H.segment)\"]}", headers: [])
        _ = await h.send("/v1/apps/app_other/live-activities/push-to-start", "{\"subscription_id\": \"o1\", \"activity_type\": \"\(H.type)\", \"token\": \"\(H.token(78))\"}", headers: [])
        let body = H.startBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\""])
        let a = await h.start(body)
        let b = await h.start(body, app: "app_other", headers: [("X-OP-API-Key", "rk_other")])
        #expect(a.status == 201)
        #expect(b.status == 201)
        #expect(b.header("Idempotent-Replayed") == nil)
        #expect(a.json["notification_id"] != b.json["notification_id"])
    }

    @Test(arguments: Transport.all) func updatesHaveNoIdempotency(_ t: Transport) async throws {
        let h = try H(t)
        _ = await h.start(H.startBody())
        let body = H.updateBody(["idempotency_key": "\"5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2\""])
        let a = await h.notify("order_88214", body), b = await h.notify("order_88214", body)
        #expect(a.json["id"] != b.json["id"])
        #expect(b.header("Idempotent-Replayed") == nil)
    }

    @Test(arguments: Transport.all) func fanOutIsTruncatedAtTwoThousandAndRecorded(_ t: Transport) async throws {
        let h = try H(t, devices: 2_001)
        let r = await h.start(H.startBody())
        #expect(r.status == 201)
        #expect(r.json.keys == ["notification_id"])
        let send = h.sends[0]
        #expect(send["audience"] == .int(2_001))
        #expect(send["reached"] == .int(2_000))
        #expect(send["truncated"] == .bool(true))
        #expect(send["deliveries"]?.arrayValue?.count == 2_000)
        #expect(send.at("deliveries", 1_999, "subscription_id") == .string("sub_1999"))
        // The update fans out to the 2,000 registered devices, not truncated further.
        _ = await h.notify("order_88214", H.updateBody())
        #expect(h.sends[1]["truncated"] == .bool(false))
    }
}
