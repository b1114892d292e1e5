/// The keys of a line PushBridge writes on every request (the access line, a finding's line),
/// checked once rather than on every line (issue 31): when each is written as it is (already
/// safe, at most 64 bytes), none is `ts`, `level` or `msg` or repeats another, and none is
/// secret-named, ``plain`` is true and a line with exactly these keys, in this order, needs no
/// key sanitized, suffixed or redacted — the line the general path writes, byte for byte.
struct LogLineKeys: Sendable {
    /// The keys, in the order the line's fields come in.
    let names: [String]
    /// Whether every key is written as it is and no value is redacted (see the type's summary).
    let plain: Bool

    /// The keys `names`, checked through the encoder's and the redaction's own rules.
    init(_ names: [String]) {
        self.names = names
        var seen = LogLineEncoder.reservedKeys
        self.plain = names.allSatisfy { name in
            LogLineEncoder.sanitize(name) == name && seen.insert(name).inserted && !LogRedaction.isSecret(key: name)
        }
    }

    /// Whether `fields` has exactly these keys, in this order (what a caller promises; checked
    /// in debug builds).
    func match<Fields: Collection<LogField>>(_ fields: Fields) -> Bool {
        fields.count == names.count && zip(fields, names).allSatisfy { $0.key == $1 }
    }
}
