extension Redaction {
    /// The audit's redacted copy of a body the parser accepted, made over its bytes: the
    /// caller's bytes with the secret spans replaced (``JSONSecretSpans``), whitespace outside
    /// strings left out. Byte for byte what redacting the parsed tree and writing it gives
    /// (``JSONWriter`` writes compactly, numbers as their literals, strings without escapes as
    /// their bytes): a value under a secret key becomes `"<fingerprint>"` (swept), a string
    /// with escapes is decoded, swept and written as the writer writes it, any other string is
    /// swept over its own bytes and kept when nothing matched.
    ///
    /// Nil when the tree path must decide: the scan met something it did not expect, or the
    /// sweep changes an object key (the tree path then rebuilds the object, and two keys that
    /// become one keep the later value).
    ///
    /// `made`: the request's scrubber of its body's secrets and `extraSecrets`, used when the
    /// secrets found here are exactly its ``BodyScrubber/secrets`` (no automaton built again).
    static func redactedBytes(_ bytes: [UInt8], dialect: DialectName?, extraSecrets: [String], made: BodyScrubber? = nil,
                              fingerprint: (String) -> String) -> (body: String, secrets: Set<String>, scrubber: SecretScrubber)? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let scan = JSONSecretSpans(buffer, dialect: dialect) else { return nil }
            // The values under secret keys first: every string is swept of all of them.
            var found = Set<String>()
            guard let hashed = secretLeaves(buffer, scan, collecting: &found) else { return nil }
            let scrubber = made.flatMap { $0.secrets == found ? $0.scrubber : nil }
                ?? SecretScrubber(secrets: Array(found) + extraSecrets, fingerprint: fingerprint)
            guard let text = writtenText(buffer, scan, hashed: hashed, scrubber: scrubber, fingerprint: fingerprint) else { return nil }
            return (text, found, scrubber)
        }
    }

    /// The secret spans' texts as the tree fingerprints them (``secretLeaf(_:_:)``), in
    /// document order, with the texts the sweep takes added to `found`; nil when one does not
    /// decode.
    static func secretLeaves(_ buffer: UnsafeBufferPointer<UInt8>, _ scan: JSONSecretSpans, collecting found: inout Set<String>) -> [String]? {
        var hashed: [String] = []
        for span in scan.spans where span.kind.isSecret {
            guard let leaf = secretLeaf(buffer, span) else { return nil }
            if let text = leaf.text { found.insert(text) }
            hashed.append(leaf.hashed)
        }
        return hashed
    }

    /// ``write(_:_:hashed:scrubber:fingerprint:to:)``'s text, written straight into a string's
    /// own storage (issue 31: written into an array and then copied into a string, it was two
    /// allocations per redaction, two redactions per request): into a guessed room through a
    /// cursor that also counts, and again at exactly its counted size when it does not fit.
    /// Nil where ``write(_:_:hashed:scrubber:fingerprint:to:)`` says the tree must decide.
    static func writtenText(_ buffer: UnsafeBufferPointer<UInt8>, _ scan: JSONSecretSpans, hashed: [String],
                            scrubber: SecretScrubber, fingerprint: (String) -> String) -> String? {
        // Room for the bytes, a fingerprint in place of every secret, and some sweeping.
        let room = buffer.count + buffer.count / 2 + 80 * hashed.count + 64
        var refused = false, needed = 0
        let fitted = String(unsafeUninitializedCapacity: room) { memory in
            var cursor = JSONFittingCursor(memory)
            guard write(buffer, scan, hashed: hashed, scrubber: scrubber, fingerprint: fingerprint, to: &cursor) else {
                refused = true
                return 0
            }
            if cursor.fits { return cursor.count }
            needed = cursor.count
            return 0
        }
        if refused { return nil }
        guard needed > 0 else { return fitted }
        return String(unsafeUninitializedCapacity: needed) { memory in
            var cursor = JSONRawCursor(memory)
            _ = write(buffer, scan, hashed: hashed, scrubber: scrubber, fingerprint: fingerprint, to: &cursor)
            precondition(cursor.written == needed, "the redacted text wrote \(cursor.written) bytes, counted \(needed)")
            return needed
        }
    }

    /// Puts `buffer` written compactly with its secret spans replaced by the fingerprint of
    /// `hashed` (one per secret span, in order) and every string swept by `scrubber`; false
    /// when the sweep changes an object key or an escaped string does not decode (what was
    /// put is then of no use).
    static func write<Sink: JSONByteSink>(_ buffer: UnsafeBufferPointer<UInt8>, _ scan: JSONSecretSpans, hashed: [String],
                                          scrubber: SecretScrubber, fingerprint: (String) -> String, to out: inout Sink) -> Bool {
        var copied = 0, secretIndex = 0
        func copy(upTo end: Int) {
            if scan.hasWhitespace {
                // Runs start outside strings; strings kept as they are keep their spaces.
                var i = copied
                while i < end {
                    let b = buffer[i]
                    if b == UInt8(ascii: "\"") {
                        let open = i
                        i += 1
                        while i < end, buffer[i] != UInt8(ascii: "\"") { i += buffer[i] == UInt8(ascii: "\\") ? 2 : 1 }
                        i = min(i + 1, end)
                        out.put(UnsafeBufferPointer(rebasing: buffer[open..<i]))
                        continue
                    }
                    if !(b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09) { out.put(b) }
                    i += 1
                }
            } else {
                out.put(UnsafeBufferPointer(rebasing: buffer[copied..<end]))
            }
            copied = end
        }
        for span in scan.spans {
            switch span.kind {
            case .secret, .secretTwice:
                copy(upTo: span.start)
                let once = fingerprint(hashed[secretIndex])
                JSONWriter.writeString(scrubber.scrub(span.kind == .secretTwice ? fingerprint(once) : once, fingerprint: fingerprint), to: &out)
                secretIndex += 1
                copied = span.end
            case .key, .string:
                if span.escaped {
                    guard let text = JSONSecretSpans.text(buffer, span.start..<span.end, escaped: true) else { return false }
                    let swept = scrubber.scrub(text, fingerprint: fingerprint)
                    if span.kind == .key && swept != text { return false }
                    copy(upTo: span.start)
                    JSONWriter.writeString(swept, to: &out)
                    copied = span.end
                } else if let swept = scrubber.scrubbed(UnsafeBufferPointer(rebasing: buffer[span.start + 1..<span.end - 1]), fingerprint: fingerprint) {
                    if span.kind == .key { return false }
                    copy(upTo: span.start)
                    // Written as the writer writes the swept text (a fingerprint is the caller's to choose).
                    JSONWriter.writeString(String(decoding: swept, as: UTF8.self), to: &out)
                    copied = span.end
                }
            }
        }
        copy(upTo: buffer.count)
        return true
    }

    /// A secret span's text as the tree path fingerprints it (`hashed`: a string's text, a
    /// number's literal, `true`/`false`) and as it collects it for the sweep (`text`: strings
    /// and numbers; nil for booleans), or nil when an escaped string does not decode.
    private static func secretLeaf(_ buffer: UnsafeBufferPointer<UInt8>, _ span: JSONSecretSpans.Span) -> (hashed: String, text: String?)? {
        let first = buffer[span.start]
        if first == UInt8(ascii: "\"") {
            guard let text = JSONSecretSpans.text(buffer, span.start..<span.end, escaped: span.escaped) else { return nil }
            return (text, text)
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: buffer[span.start..<span.end]), as: UTF8.self)
        if first == UInt8(ascii: "t") || first == UInt8(ascii: "f") { return (literal, nil) }
        return (literal, literal)
    }
}
