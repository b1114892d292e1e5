/// The ids PushBridge makes up for BuzzKit starts, which carry none (the device assigns
/// `Activity.id`).
enum BuzzKitIds {
    /// `bk_` + the proxy's request id (with `/` made `_`, which OpenPush forbids in ids), or,
    /// when there is none, `bk_` + the FNV-1a 64 hash of the body in 16 hex digits, so the same
    /// body always gets the same id.
    static func startActivityId(requestId: String?, body: [UInt8]) -> String {
        if let requestId, !OpenPushRules.isBlank(requestId) {
            var id = "bk_"
            for c in requestId.unicodeScalars { id.unicodeScalars.append(c == "/" ? "_" : c) }
            return id
        }
        return "bk_" + fnv1a64Hex(body)
    }

    /// FNV-1a 64-bit of the bytes, as 16 lowercase hex digits.
    static func fnv1a64Hex(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
