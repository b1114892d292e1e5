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
        if let redacted = openPushRequestsOverBytes(requests, dialect: dialect, scrubber: scrubber, fingerprint: fingerprint) { return redacted }
        return JSONWriter.string(openPushRequests(requests, dialect: dialect, scrubber: scrubber, fingerprint: fingerprint))
    }

    /// ``openPushRequestsText(_:dialect:scrubber:fingerprint:)`` over bytes only, or nil where
    /// the tree must decide.
    static func openPushRequestsOverBytes(_ requests: [OpenPushRequest], dialect: DialectName?, scrubber: SecretScrubber,
                                          fingerprint: (String) -> String) -> String? {
        openPushEnvelopeBytes(requests).withUnsafeBufferPointer { buffer -> String? in
            // Array, request object, body: the body's own keys are at depth 3. Secret keys
            // are the ones of no dialect, as the tree path redacts them.
            guard let scan = JSONSecretSpans(buffer, dialect: nil, targetingDepth: dialect == .pushwoosh ? 3 : nil) else { return nil }
            var ignored = Set<String>()
            guard let hashed = secretLeaves(buffer, scan, collecting: &ignored) else { return nil }
            return writtenText(buffer, scan, hashed: hashed, scrubber: scrubber, fingerprint: fingerprint)
        }
    }

    /// The requests as the audit's envelope, unredacted: `[{"method","path","body"[,"send_at"]}]`,
    /// compact, the same bytes as writing the tree ``openPushRequests(_:dialect:scrubber:fingerprint:)``
    /// builds before it redacts. Written once into an array of ``OpenPushRequest/bodyRoom``
    /// bytes per request through a cursor that also counts, and written again into an array
    /// of exactly its counted size when it does not fit, as ``OpenPushRequest/bodyBytes`` is:
    /// one allocation. (Appended to a growing array, each body's writer took the array over
    /// and put into a copy of it: two more allocations per request.)
    static func openPushEnvelopeBytes(_ requests: [OpenPushRequest]) -> [UInt8] {
        var needed = 0
        let fitted = [UInt8](unsafeUninitializedCapacity: OpenPushRequest.bodyRoom * requests.count + 64) { buffer, initialized in
            var cursor = JSONFittingCursor(buffer)
            writeEnvelope(requests, to: &cursor)
            if cursor.fits { initialized = cursor.count } else { needed = cursor.count }
        }
        guard needed > 0 else { return fitted }
        return [UInt8](unsafeUninitializedCapacity: needed) { buffer, initialized in
            var cursor = JSONRawCursor(buffer)
            writeEnvelope(requests, to: &cursor)
            precondition(cursor.written == needed, "the audit envelope wrote \(cursor.written) bytes, counted \(needed)")
            initialized = needed
        }
    }

    /// Puts the envelope's bytes (see ``openPushEnvelopeBytes(_:)``).
    private static func writeEnvelope<Sink: JSONByteSink>(_ requests: [OpenPushRequest], to out: inout Sink) {
        out.put(UInt8(ascii: "["))
        // Indexed, not `enumerated()`: an unoptimized iterator allocates per element.
        var i = 0
        while i < requests.count {
            let request = requests[i]
            if i > 0 { out.put(UInt8(ascii: ",")) }
            JSONWriter.putStatic(#"{"method":"#, to: &out)
            JSONWriter.writeString(request.method, to: &out)
            JSONWriter.putStatic(#","path":"#, to: &out)
            JSONWriter.writeString(request.path, to: &out)
            JSONWriter.putStatic(#","body":"#, to: &out)
            request.writeBody(to: &out)
            if let sendAt = request.sendAt {
                JSONWriter.putStatic(#","send_at":"#, to: &out)
                JSONWriter.write(.int(sendAt.unixSeconds), to: &out)
            }
            out.put(UInt8(ascii: "}"))
            i += 1
        }
        out.put(UInt8(ascii: "]"))
    }
}
