import PushBridgeCore

/// Gives every start an `idempotency_key` so a retried start can never start twice.
///
/// The caller's key is kept; otherwise the key is derived from the request id and the
/// request's index in the translation (a UUID made from their SHA-256), so it is the same on
/// every attempt and stored with the translated request in the audit.
public enum IdempotencyKeys {
    /// The requests with a key on every start.
    public static func assign(_ requests: [OpenPushRequest], requestId: String) -> [OpenPushRequest] {
        requests.enumerated().map { index, request in
            guard case .start(var start) = request.payload, start.idempotencyKey == nil else { return request }
            start.idempotencyKey = derive(requestId: requestId, index: index)
            var copy = request
            copy.payload = .start(start)
            return copy
        }
    }

    /// The derived key: a version-5-style UUID from SHA-256(`pushbridge:<request id>:<index>`).
    public static func derive(requestId: String, index: Int) -> String {
        var b = Array(Fingerprint.sha256("pushbridge:" + requestId + ":" + String(index)).prefix(16))
        b[6] = (b[6] & 0x0F) | 0x50
        b[8] = (b[8] & 0x3F) | 0x80
        // 8-4-4-4-12 lower-case hex digits, written into one buffer.
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (i, byte) in b.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigit(byte >> 4))
            text.append(hexDigit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
