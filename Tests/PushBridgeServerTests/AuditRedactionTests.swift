import Foundation
import PushBridgeCore
import Testing
@testable import PushBridgeServer

struct AuditRedactionTests {
    static let pushwooshBody = """
        {"request":{"application":"XXXXX-XXXXX","auth":"SECRET_API_TOKEN","notifications":[{"content":"Order","live_activity":{"event":"start",\
        "content-state":{"status":"Third"},"attributes-type":"FoodDeliveryAttributes","attributes":{}},"live_activity_id":"FIRST",\
        "devices":["DEVICE_TOKEN_AAAA1111","DEVICE_TOKEN_BBBB2222"],"comment":"echo DEVICE_TOKEN_AAAA1111"}]}}
        """

    @Test func pushwooshSecretsLeaveNoTraceInTheDatabaseFiles() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            var start = OpenPushStart(appId: "op-app", activityType: "FoodDeliveryAttributes")
            start.activityId = "FIRST"
            start.includeSubscriptionIds = ["DEVICE_TOKEN_AAAA1111", "DEVICE_TOKEN_BBBB2222"]
            var aliased = OpenPushStart(appId: "op-app", activityType: "FoodDeliveryAttributes")
            aliased.includeAliases = ["push_token": .array([.string("DEVICE_TOKEN_BBBB2222")])]
            let translation = Translation(dialect: .pushwoosh, route: .start, sourceApp: "XXXXX-XXXXX",
                                          requests: [OpenPushRequest(.start(start)), OpenPushRequest(.start(aliased))],
                                          findings: [Finding(field: "notifications[0].comment", kind: .dropped, message: "dropped")])
            let entry = AuditEntry(requestId: "RW1", receivedAt: 1_700_000_000_000, path: "/json/1.3/startLiveActivity?auth=SECRET_API_TOKEN",
                                   route: InboundRoute(dialect: .pushwoosh, kind: .start), translation: translation,
                                   inboundBody: Array(Self.pushwooshBody.utf8), keyFingerprint: Fingerprint.of("SECRET_API_TOKEN"))
            try await store.begin(entry)
            // Inspect while the rows are still in the WAL, then again after the checkpoint.
            for secret in ["SECRET_API_TOKEN", "DEVICE_TOKEN_AAAA1111", "DEVICE_TOKEN_BBBB2222"] {
                #expect(!contains(databaseBytes(path), secret), "\(secret) found in the database or WAL")
            }
            try await store.finish("RW1", sampleCompletion())
            let record = try #require(try store.reader.show(requestId: "RW1"))
            await store.close()
            let bytes = databaseBytes(path)
            for secret in ["SECRET_API_TOKEN", "DEVICE_TOKEN_AAAA1111", "DEVICE_TOKEN_BBBB2222"] {
                #expect(!contains(bytes, secret), "\(secret) found in the database files")
            }
            let inbound = try #require(record.entry.inboundBody)
            #expect(inbound.contains(Fingerprint.of("SECRET_API_TOKEN")))
            #expect(inbound.contains(Fingerprint.of("DEVICE_TOKEN_AAAA1111")))
            #expect(try #require(record.entry.translated).contains(Fingerprint.of("DEVICE_TOKEN_BBBB2222")))
            #expect(record.entry.path == "/json/1.3/startLiveActivity")
        }
    }

    @Test func anUnparseableBodyIsStoredAsItsFingerprint() async throws {
        try await withTemporaryAudit { path in
            let store = try AuditStore(path: path)
            let raw = #"{"request":{"auth":"SECRET_API_TOKEN", oops"#
            let entry = AuditEntry(requestId: "U1", receivedAt: 1, path: "/json/1.3/startLiveActivity", route: InboundRoute(dialect: .pushwoosh, kind: .start),
                                   translation: nil, inboundBody: Array(raw.utf8), keyFingerprint: nil)
            try await store.record(entry, AuditCompletion(finishedAt: 2, outcome: .rejected, responseStatus: 400, errorMessage: "malformed JSON"))
            let record = try #require(try store.reader.show(requestId: "U1"))
            let expected = #"{"unparseable":true,"bytes":\#(raw.utf8.count),"sha256":"\#(Fingerprint.of(raw))"}"#
            #expect(record.entry.inboundBody == expected)
            #expect(record.outcome == "rejected")
            await store.close()
            #expect(!contains(databaseBytes(path), "SECRET_API_TOKEN"))
        }
    }

    @Test(arguments: [TranslationContext.DeviceTargeting.subscriptionIds, .alias("pushwoosh_hwid")])
    func theRealPushwooshTranslationKeepsNoDeviceToken(targeting: TranslationContext.DeviceTargeting) throws {
        let body = Array(Self.pushwooshBody.utf8)
        let route = try #require(InboundRoute.match(path: "/json/1.3/startLiveActivity"))
        let context = TranslationContext(now: 1_700_000_000, targetAppId: "op-app", deviceTargeting: targeting, deviceTargetingConfigured: true)
        let translation = PushwooshDialect().translate(route: route, body: body, context: context)
        #expect(translation.isForwardable)
        let entry = AuditEntry(requestId: "RW2", receivedAt: 1, path: route.name, route: route, translation: translation,
                               inboundBody: body, keyFingerprint: nil)
        let stored = (entry.inboundBody ?? "") + (entry.translated ?? "")
        for secret in ["SECRET_API_TOKEN", "DEVICE_TOKEN_AAAA1111", "DEVICE_TOKEN_BBBB2222"] { #expect(!stored.contains(secret)) }
        #expect(try #require(entry.translated).contains(Fingerprint.of("DEVICE_TOKEN_AAAA1111")))
    }
}
