import PushBridgeCore

/// Gives every start an `idempotency_key` so a retried start can never start twice, and keeps
/// one source app's keys from ever meeting another's at OpenPush.
///
/// A caller's key is scoped to its source app (``scoped(_:sourceApp:)``): several source apps
/// may send to one OpenPush app, and OpenPush's keys are per OpenPush app, so the same caller
/// key from two tenants would otherwise replay the first tenant's start to the second. A start
/// without one gets a key derived from the request id and the request's index in the
/// translation (a UUID made from their SHA-256), so it is the same on every attempt and stored
/// with the translated request in the audit.
public enum IdempotencyKeys {
    /// The namespace of every source app's namespace: the UUIDv5 of
    /// `urn:pushbridge:idempotency-key` in RFC 9562's URL namespace.
    static let namespace = NameBasedUUID.bytes("37f9e279-75f5-5a8e-a5eb-e9018de32fff")!

    /// The requests with a key on every start: the caller's scoped to `sourceApp`, or one derived.
    public static func assign(_ requests: [OpenPushRequest], requestId: String, sourceApp: String) -> [OpenPushRequest] {
        assigning(requests, requestId: requestId, sourceApp: sourceApp).requests
    }

    /// `translation` with a key on every start (as ``assign(_:requestId:sourceApp:)``) and a
    /// finding for each caller key that was scoped, naming the caller's field and what was sent.
    public static func assign(_ translation: Translation, requestId: String, sourceApp: String) -> Translation {
        var t = translation
        let (requests, findings) = assigning(t.requests, requestId: requestId, sourceApp: sourceApp)
        t.requests = requests
        t.findings += findings
        return t
    }

    private static func assigning(_ requests: [OpenPushRequest], requestId: String, sourceApp: String) -> (requests: [OpenPushRequest], findings: [Finding]) {
        var findings: [Finding] = []
        let out = requests.enumerated().map { index, request in
            guard case .start(var start) = request.payload else { return request }
            if let key = start.idempotencyKey {
                guard let scoped = scoped(key, sourceApp: sourceApp) else { return request }
                start.idempotencyKey = scoped
                let field = request.sourceFields["idempotency_key"] ?? "idempotency_key"
                // Info, not a warning: nothing the caller meant is lost, and every keyed start has one.
                findings.append(Finding(field: field, kind: .converted, severity: .info,
                                        message: "scoped to source app \(sourceApp): sent to OpenPush as \(scoped) (the UUIDv5 of the source app and the key), so no other source app can replay or block it"))
            } else {
                start.idempotencyKey = derive(requestId: requestId, index: index)
            }
            var copy = request
            copy.payload = .start(start)
            return copy
        }
        return (out, findings)
    }

    /// A caller's key as sent to OpenPush: the UUIDv5 (RFC 9562) of the key, lower-cased, in
    /// the source app's own namespace (the UUIDv5 of `sourceApp` in ``namespace``). The same
    /// key from the same source app always gives the same UUID, so retries stay idempotent.
    /// Nil for a key that is not a UUID: OpenPush's rules refuse it as the caller sent it.
    public static func scoped(_ key: String, sourceApp: String) -> String? {
        guard OpenPushRules.isUUID(key) else { return nil }
        let app = NameBasedUUID.v5(namespace: namespace, name: sourceApp)
        // A key already in lower case (the usual form) is hashed as it is, not copied.
        let lowered = key.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? key.lowercased() : key
        return NameBasedUUID.text(NameBasedUUID.v5(namespace: app, name: lowered))
    }

    /// The derived key: a version-5-style UUID from SHA-256(`pushbridge:<request id>:<index>`).
    public static func derive(requestId: String, index: Int) -> String {
        var b = Array(Fingerprint.sha256("pushbridge:" + requestId + ":" + String(index)).prefix(16))
        b[6] = (b[6] & 0x0F) | 0x50
        b[8] = (b[8] & 0x3F) | 0x80
        return NameBasedUUID.text(b)
    }
}
