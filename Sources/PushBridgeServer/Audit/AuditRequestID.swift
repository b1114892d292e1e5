/// Request ids that sort by time: 10 Crockford base-32 characters of Unix milliseconds, then
/// 16 of randomness (ULID layout), e.g. `01J9Z3K8QX4M2N7P5R6T8V0W1Y`.
public enum AuditRequestID {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// A new id for `milliseconds` (Unix).
    public static func make(milliseconds: Int64) -> String {
        var generator = SystemRandomNumberGenerator()
        var out = [UInt8](repeating: 0, count: 26)
        var time = UInt64(max(0, milliseconds))
        for index in stride(from: 9, through: 0, by: -1) {
            out[index] = alphabet[Int(time & 31)]
            time >>= 5
        }
        var random = generator.next() as UInt64
        var more = generator.next() as UInt64
        for index in 10..<26 {
            let source = index < 22 ? random : more
            out[index] = alphabet[Int(source & 31)]
            if index < 22 { random >>= 5 } else { more >>= 5 }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
