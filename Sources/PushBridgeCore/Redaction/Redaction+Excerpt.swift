extension Redaction {
    /// How much of a refused request's body the audit keeps, in bytes of redacted JSON text.
    public static let excerptBytes = 4096

    /// What the audit keeps of a request refused before it was authenticated (no or wrong
    /// credential, unknown app): `{"excerpt": "…", "truncated": Bool, "bytes": N, "sha256": "…"}`
    /// with the first ``excerptBytes`` of the body as redacted JSON text, the body's size and its
    /// fingerprint. The work is bounded by the excerpt, not the body: only the part of the
    /// document that fits is visited and redacted (values under secret keys fingerprinted,
    /// `extraSecrets` and the secrets found there swept). A body that does not parse is kept as
    /// ``unparseable(_:fingerprint:)`` (never its text).
    public static func refusedBody(_ body: ParsedBody, dialect: DialectName?, extraSecrets: [String], limit: Int = excerptBytes,
                                   fingerprint: (String) -> String) -> String {
        guard let value = body.value else { return unparseable(body.bytes, fingerprint: fingerprint) }
        // First the secrets under secret keys within the excerpt, then the excerpt swept of them.
        var probe = ExcerptWriter(limit: limit, dialect: dialect)
        probe.write(value, secret: false, scrub: { $0 }, fingerprint: fingerprint)
        let scrubber = SecretScrubber(secrets: probe.found + extraSecrets, fingerprint: fingerprint)
        var writer = ExcerptWriter(limit: limit, dialect: dialect)
        writer.write(value, secret: false, scrub: { scrubber.scrub($0, fingerprint: fingerprint) }, fingerprint: fingerprint)
        var summary = JSONObject()
        summary.appendUnchecked("excerpt", .string(String(decoding: writer.out, as: UTF8.self)))
        summary.appendUnchecked("truncated", .bool(writer.truncated))
        summary.appendUnchecked("bytes", .int(Int64(body.bytes.count)))
        summary.appendUnchecked("sha256", .string(fingerprint(String(decoding: body.bytes, as: UTF8.self))))
        return JSONWriter.string(.object(summary))
    }
}

/// Writes JSON text of a document until `limit` bytes, redacting as it goes; stops there.
struct ExcerptWriter {
    let limit: Int
    let dialect: DialectName?
    var out: [UInt8] = []
    var truncated = false
    /// Values met under secret keys (what a sweep of the excerpt must also remove).
    var found: [String] = []

    init(limit: Int, dialect: DialectName?) {
        self.limit = limit
        self.dialect = dialect
        out.reserveCapacity(limit + 64)
    }

    private var full: Bool { out.count >= limit }

    /// Writes `value`; under a secret key (`secret`) every scalar is written as its fingerprint.
    mutating func write(_ value: JSONValue, secret: Bool, scrub: (String) -> String, fingerprint: (String) -> String) {
        if full { truncated = true; return }
        switch value {
        case .null: append("null")
        case .bool(let flag): secret ? string(fingerprint(flag ? "true" : "false")) : append(flag ? "true" : "false")
        case .number(let number): secret ? string(fingerprint(number.literal)) : append(number.literal)
        case .string(let text):
            if secret {
                if text.utf8.count <= limit { found.append(text) }
                string(fingerprint(text))
            } else {
                // Scrub a little more than fits, so a secret cut at the end is still replaced whole.
                let room = limit - out.count + 2 * limit
                string(scrub(text.utf8.count > room ? String(decoding: text.utf8.prefix(room), as: UTF8.self) : text))
            }
        case .array(let items):
            append("[")
            for (i, item) in items.enumerated() {
                if full { truncated = true; return }
                if i > 0 { append(",") }
                write(item, secret: secret, scrub: scrub, fingerprint: fingerprint)
            }
            append("]")
        case .object(let object):
            append("{")
            for (i, member) in object.members.enumerated() {
                if full { truncated = true; return }
                if i > 0 { append(",") }
                string(scrub(member.key))
                append(":")
                write(member.value, secret: secret || Redaction.isSecretKey(member.key, dialect: dialect), scrub: scrub, fingerprint: fingerprint)
            }
            append("}")
        }
    }

    private mutating func append(_ text: String) {
        out.append(contentsOf: text.utf8)
        cut()
    }

    private mutating func string(_ text: String) {
        JSONWriter.writeString(text, into: &out)
        cut()
    }

    private mutating func cut() {
        guard out.count > limit else { return }
        out.removeLast(out.count - limit)
        // Never end inside a UTF-8 sequence.
        while let last = out.last, last & 0xC0 == 0x80 { out.removeLast() }
        if let last = out.last, last >= 0xC0 { out.removeLast() }
        truncated = true
    }
}
