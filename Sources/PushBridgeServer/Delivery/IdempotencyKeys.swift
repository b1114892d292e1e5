import COpenSSL
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
        var requests = requests, findings: [Finding] = []
        assign(&requests, findings: &findings, requestId: requestId, sourceApp: sourceApp)
        return requests
    }

    /// `translation` with a key on every start (as ``assign(_:requestId:sourceApp:)``) and a
    /// finding for each caller key that was scoped, naming the caller's field and what was sent.
    /// Taken as it is (consumed): its requests and findings are changed in place, not mapped
    /// into new arrays (issue 31).
    public static func assign(_ translation: consuming Translation, requestId: String, sourceApp: String) -> Translation {
        var t = translation
        assign(&t.requests, findings: &t.findings, requestId: requestId, sourceApp: sourceApp)
        return t
    }

    /// A start that holds nothing, put in a request's place while its own start is changed, so
    /// that start's box is not shared and is changed where it is rather than copied.
    private static let vacated = OpenPushRequest.Payload.start(OpenPushStart(appId: "", activityType: ""))

    private static func assign(_ requests: inout [OpenPushRequest], findings: inout [Finding], requestId: String, sourceApp: String) {
        // Indexed, not `enumerated()`: an unoptimized iterator allocates per element.
        var index = 0
        while index < requests.count {
            defer { index += 1 }
            guard case .start(var start) = requests[index].payload else { continue }
            if let key = start.idempotencyKey {
                guard let scoped = scoped(key, sourceApp: sourceApp) else { continue }
                requests[index].payload = vacated
                start.idempotencyKey = scoped
                requests[index].payload = .start(start)
                let field = requests[index].sourceFields["idempotency_key"] ?? "idempotency_key"
                // Info, not a warning: nothing the caller meant is lost, and every keyed start has one.
                findings.append(Finding(field: field, kind: .converted, severity: .info,
                                        message: scopeMessage(sourceApp: sourceApp, scoped: scoped)))
            } else {
                requests[index].payload = vacated
                start.idempotencyKey = derive(requestId: requestId, index: index)
                requests[index].payload = .start(start)
            }
        }
    }

    /// The scope finding's message, written into one string of its length (interpolation grew
    /// it twice).
    static func scopeMessage(sourceApp: String, scoped: String) -> String {
        let head = "scoped to source app ", middle = ": sent to OpenPush as "
        let tail = " (the UUIDv5 of the source app and the key), so no other source app can replay or block it"
        var message = ""
        message.reserveCapacity(head.utf8.count + sourceApp.utf8.count + middle.utf8.count + scoped.utf8.count + tail.utf8.count)
        message += head
        message += sourceApp
        message += middle
        message += scoped
        message += tail
        return message
    }

    /// A caller's key as sent to OpenPush: the UUIDv5 (RFC 9562) of the key, lower-cased, in
    /// the source app's own namespace (the UUIDv5 of `sourceApp` in ``namespace``). The same
    /// key from the same source app always gives the same UUID, so retries stay idempotent.
    /// Nil for a key that is not a UUID: OpenPush's rules refuse it as the caller sent it.
    public static func scoped(_ key: String, sourceApp: String) -> String? {
        guard OpenPushRules.isUUID(key) else { return nil }
        // A key already in lower case (the usual form) is hashed as it is, not copied.
        let lowered = key.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? key.lowercased() : key
        return NameBasedUUID.nestedV5Text(namespace: namespace, outer: sourceApp, inner: lowered)
    }

    /// The derived key: a version-5-style UUID from SHA-256(`pushbridge:<request id>:<index>`).
    public static func derive(requestId: String, index: Int) -> String {
        // The hashed text written on the stack and the digest beside it: the key's string is
        // the one allocation (the joined text, the digest and its prefix were four more).
        let prefix = "pushbridge:", number = String(index)  // a small string: no allocation
        var id = requestId
        return id.withUTF8 { id in
            let length = prefix.utf8.count + id.count + 1 + number.utf8.count
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + Int(SHA256_DIGEST_LENGTH)) { room in
                var n = 0
                for b in prefix.utf8 { room[n] = b; n += 1 }
                for b in id { room[n] = b; n += 1 }
                room[n] = UInt8(ascii: ":"); n += 1
                for b in number.utf8 { room[n] = b; n += 1 }
                let digest = UnsafeMutableBufferPointer(rebasing: room[length...])
                pb_sha256(room.baseAddress, length, digest.baseAddress)
                digest[6] = (digest[6] & 0x0F) | 0x50
                digest[8] = (digest[8] & 0x3F) | 0x80
                return NameBasedUUID.text(UnsafeBufferPointer(rebasing: digest[..<16]))
            }
        }
    }
}
