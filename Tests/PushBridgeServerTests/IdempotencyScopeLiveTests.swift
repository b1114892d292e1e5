import Foundation
import Testing
import PushBridgeCore
@testable import PushBridgeServer

/// A caller's `idempotency_key` is scoped to its source app before it reaches OpenPush: two
/// OneSignal source apps mapped to one OpenPush app never share a key, and one app's retry
/// with the same key is still a replay.
@Suite(.serialized)
struct IdempotencyScopeLiveTests {
    static let key = "5F7A2C1E-9B40-4A2D-8C31-6E0B7D94A1F2"
    /// The two OneSignal source apps of ``TestApp/standard`` (`os` and `os-mapped`),
    /// both sending to OpenPush app `app_3f9c2b`.
    static let tenants = ["app_3f9c2b", "5eb5a37e-b458-11e3-ac11-000c2940e62c"]

    static func start(_ activity: String, key: String = key) -> [UInt8] {
        let body = String(decoding: ProxyPacingLiveTests.startBody(activity), as: UTF8.self)
        return Array(body.replacingOccurrences(of: #""event":"start","#, with: #""event":"start","idempotency_key":"\#(key)","#).utf8)
    }

    static func notificationId(_ reply: ProxyReply) -> String? {
        (try? JSONParser.parse(reply.body))?.objectValue?["notification_id"]?.stringValue
    }

    static func sentKey(_ exchange: UpstreamExchange) -> String? {
        (try? JSONParser.parse(exchange.body))?.objectValue?["idempotency_key"]?.stringValue
    }

    @Test func twoSourceAppsOnOneOpenPushAppWithTheSameKeyBothStartAndARetryIsStillAReplay() async throws {
        let openPush = try RecordingSandbox()
        let proxy = try ProxyHarness(.inProcess, upstream: openPush.baseURL)
        var ids: [String] = []
        for (i, tenant) in Self.tenants.enumerated() {
            let reply = try await proxy.send(path: "/apps/\(tenant)/activities/activity/DeliveryAttributes", body: Self.start("tenant_\(i)"))
            #expect(reply.status == 201, "\(tenant): \(String(decoding: reply.body, as: UTF8.self))")
            #expect(reply.headers["idempotent-replayed"] == nil, "\(tenant)'s start was answered as a replay of another tenant's")
            ids.append(try #require(Self.notificationId(reply), "\(tenant): no notification_id"))
        }
        #expect(Set(ids).count == 2, "both tenants got the same notification: \(ids)")
        let sent = openPush.all
        #expect(sent.count == 2 && sent.allSatisfy { $0.response.status == 201 && $0.response.headers.allSatisfy { $0.name.lowercased() != "idempotent-replayed" } },
                "OpenPush did not start both")
        let keys = sent.compactMap(Self.sentKey)
        #expect(keys.count == 2 && Set(keys).count == 2 && !keys.contains { $0.lowercased() == Self.key.lowercased() }, "keys sent: \(keys)")
        #expect(keys.allSatisfy { OpenPushRules.isUUID($0) && $0.dropFirst(14).first == "5" }, "not UUIDv5 keys: \(keys)")

        // The first tenant retries with the same key (in another case): OpenPush replays its own start.
        let retry = try await proxy.send(path: "/apps/\(Self.tenants[0])/activities/activity/DeliveryAttributes",
                                         body: Self.start("tenant_0", key: Self.key.lowercased()))
        #expect(retry.status == 201 && retry.headers["idempotent-replayed"] == "true" && Self.notificationId(retry) == ids[0],
                "the retry was not a replay: \(retry.headers) \(String(decoding: retry.body, as: UTF8.self))")
        #expect(openPush.all.count == 3 && Self.sentKey(openPush.all[2]) == keys[0])

        // The audit says what was done to the caller's key, and stores what was sent.
        let reader = try AuditReader(path: proxy.auditPath)
        let rows = try reader.list(limit: 10)
        #expect(rows.count == 3)
        for row in rows {
            let record = try #require(try reader.show(requestId: row.requestId))
            let finding = record.entry.findings.first { $0.field == "idempotency_key" }
            #expect(finding?.kind == .converted && finding?.message.contains("scoped to source app onesignal/") == true, "\(record.entry.findings)")
            #expect(keys.contains { (record.entry.translated ?? "").contains($0) }, "the audit does not hold the key that was sent")
        }
        await proxy.stop()
    }

    @Test func theScopedKeyIsTheRFC9562NameBasedUUID() {
        // RFC 9562 appendix A.4: UUIDv5 of "www.example.com" in the DNS namespace.
        let dns = NameBasedUUID.bytes("6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(NameBasedUUID.text(NameBasedUUID.v5(namespace: dns, name: "www.example.com")) == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
        let a = IdempotencyKeys.scoped(Self.key, sourceApp: "onesignal/app_3f9c2b")
        #expect(a != nil && a == IdempotencyKeys.scoped(Self.key.lowercased(), sourceApp: "onesignal/app_3f9c2b"))
        #expect(a != IdempotencyKeys.scoped(Self.key, sourceApp: "onesignal/5eb5a37e-b458-11e3-ac11-000c2940e62c"))
        #expect(IdempotencyKeys.scoped("not-a-uuid", sourceApp: "onesignal/app_3f9c2b") == nil)
    }
}
