extension Redaction {
    /// ``openPushRequests(_:dialect:scrubber:fingerprint:)`` written as text without building
    /// its tree (issue 31 item 1): the envelope and each request's body written straight into
    /// bytes (``OpenPushRequest/bodyBytes``), then redacted over those bytes as the caller's
    /// body is (``JSONSecretSpans``, with the Pushwoosh targeting keys of each body made secret
    /// as ``fingerprintTargeting(_:fingerprint:)`` does). Byte for byte what writing the tree
    /// gives; where the byte path cannot say the same (a sweep that changes an object key, a
    /// secret key below a Pushwoosh targeting key) the tree is built and written instead.
    public static func openPushRequestsText(_ requests: [OpenPushRequest], dialect: DialectName?, scrubber: SecretScrubber,
                                            fingerprint: (String) -> String) -> String {
        if let redacted = openPushRequestsOverBytes(requests, dialect: dialect, scrubber: scrubber, fingerprint: fingerprint) {
            return String(decoding: redacted, as: UTF8.self)
        }
        return JSONWriter.string(openPushRequests(requests, dialect: dialect, scrubber: scrubber, fingerprint: fingerprint))
    }

    /// ``openPushRequestsText(_:dialect:scrubber:fingerprint:)`` over bytes only, or nil where
    /// the tree must decide.
    static func openPushRequestsOverBytes(_ requests: [OpenPushRequest], dialect: DialectName?, scrubber: SecretScrubber,
                                          fingerprint: (String) -> String) -> [UInt8]? {
        openPushEnvelopeBytes(requests).withUnsafeBufferPointer { buffer -> [UInt8]? in
            // Array, request object, body: the body's own keys are at depth 3. Secret keys
            // are the ones of no dialect, as the tree path redacts them.
            guard let scan = JSONSecretSpans(buffer, dialect: nil, targetingDepth: dialect == .pushwoosh ? 3 : nil) else { return nil }
            var ignored = Set<String>()
            guard let hashed = secretLeaves(buffer, scan, collecting: &ignored) else { return nil }
            return write(buffer, scan, hashed: hashed, scrubber: scrubber, fingerprint: fingerprint)
        }
    }

    /// The requests as the audit's envelope, unredacted: `[{"method","path","body"[,"send_at"]}]`,
    /// compact, the same bytes as writing the tree ``openPushRequests(_:dialect:scrubber:fingerprint:)``
    /// builds before it redacts.
    static func openPushEnvelopeBytes(_ requests: [OpenPushRequest]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512 * requests.count + 2)
        out.append(UInt8(ascii: "["))
        for (i, request) in requests.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"method":"#.utf8)
            JSONWriter.writeString(request.method, into: &out)
            out.append(contentsOf: #","path":"#.utf8)
            JSONWriter.writeString(request.path, into: &out)
            out.append(contentsOf: #","body":"#.utf8)
            switch request.payload {
            case .start(let start): start.writeBody(into: &out)
            case .update(let update): update.writeBody(into: &out)
            }
            if let sendAt = request.sendAt {
                out.append(contentsOf: #","send_at":"#.utf8)
                JSONWriter.write(.int(sendAt.unixSeconds), into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
