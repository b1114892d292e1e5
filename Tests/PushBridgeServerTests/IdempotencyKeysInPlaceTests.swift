import PushBridgeCore
@testable import PushBridgeServer
import Testing

/// Issue 31, ninth pass: the idempotency keys are assigned in the translation's own arrays and
/// written without intermediate arrays or strings, and every key, finding and request is what
/// the code before made (its formulas copied here as the oracle).
struct IdempotencyKeysInPlaceTests {
    static let sourceApps = ["onesignal/app_3f9c2b", "pushwoosh/ABCDE-12345", "buzzkit/ws_ü_é_∂", String(repeating: "long-app/", count: 40)]
    static let requestIds = ["req_1", "req_01JDZ8Q6R2W9XK4M7N3P5T8V1B", "", "ré∂_" + String(repeating: "x", count: 600)]

    /// The code before: SHA-256 of the joined text, cut to 16 bytes, version and variant set.
    static func oldDerive(requestId: String, index: Int) -> String {
        var b = Array(Fingerprint.sha256("pushbridge:" + requestId + ":" + String(index)).prefix(16))
        b[6] = (b[6] & 0x0F) | 0x50
        b[8] = (b[8] & 0x3F) | 0x80
        return NameBasedUUID.text(b)
    }

    static func start(key: String?) -> OpenPushRequest {
        var s = OpenPushStart(appId: "app", activityType: "T")
        s.idempotencyKey = key
        return OpenPushRequest(.start(s))
    }

    @Test func theTranslationsRequestsAreChangedWhereTheyAreNotMappedIntoANewArray() {
        var t = Translation(dialect: .onesignal, route: .start, requests: [Self.start(key: nil), Self.start(key: "5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2")])
        t.requests.reserveCapacity(4)
        let before = t.requests.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        let after = IdempotencyKeys.assign(consume t, requestId: "req_1", sourceApp: "onesignal/app_a")
        #expect(after.requests.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == before)
        #expect(after.requests.map { $0.body["idempotency_key"] } == [.string(Self.oldDerive(requestId: "req_1", index: 0)), .string("21a57fd9-8c81-5659-afdf-456a45e39d42")])
        #expect(after.findings.count == 1)
    }

    @Test func aStartSharedWithAnotherHolderIsNotChangedForIt() {
        let kept = [Self.start(key: nil), Self.start(key: "5F7A2C1E-9B40-4A2D-8C31-6E0B7D94A1F2")]
        let t = IdempotencyKeys.assign(Translation(dialect: .onesignal, route: .start, requests: kept), requestId: "req_9", sourceApp: "onesignal/app_a")
        #expect(kept.map { $0.body["idempotency_key"] } == [nil, .string("5F7A2C1E-9B40-4A2D-8C31-6E0B7D94A1F2")])
        #expect(t.requests.map { $0.body["idempotency_key"] } == [.string(Self.oldDerive(requestId: "req_9", index: 0)), .string("21a57fd9-8c81-5659-afdf-456a45e39d42")])
    }

    @Test(arguments: requestIds)
    func derivedKeysAreTheOldFormulas(_ requestId: String) {
        for index in [0, 1, 2, 9, 10, 123_456_789, Int.max] {
            #expect(IdempotencyKeys.derive(requestId: requestId, index: index) == Self.oldDerive(requestId: requestId, index: index))
        }
    }

    @Test(arguments: sourceApps)
    func scopedKeysAndTheirFindingAreTheOldOnes(_ sourceApp: String) {
        let key = "5f7a2c1e-9b40-4a2d-8c31-6e0b7d94a1f2"
        let old = NameBasedUUID.text(NameBasedUUID.v5(namespace: NameBasedUUID.v5(namespace: IdempotencyKeys.namespace, name: sourceApp), name: key))
        let scoped = IdempotencyKeys.scoped(key.uppercased(), sourceApp: sourceApp)
        #expect(scoped == old)
        let t = IdempotencyKeys.assign(Translation(dialect: .onesignal, route: .start, requests: [Self.start(key: key)]), requestId: "r", sourceApp: sourceApp)
        #expect(t.findings.map(\.message) == ["scoped to source app \(sourceApp): sent to OpenPush as \(old) (the UUIDv5 of the source app and the key), so no other source app can replay or block it"])
        #expect(t.findings.first?.field == "idempotency_key" && t.findings.first?.kind == .converted && t.findings.first?.severity == .info)
    }
}
