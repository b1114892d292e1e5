import CMicroHTTPD

/// Reads from and answers on one `MHD_Connection *`. Call only from libmicrohttpd's callbacks
/// for that connection.
enum MHDConnection {
    /// The connection's identity as a number (a raw pointer is not `Sendable`).
    static func key(_ connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    }

    /// The request headers, in arrival order, names as sent.
    ///
    /// libmicrohttpd parses the head in place, writing a NUL over each line's `\r` and `\n`,
    /// and hands out C strings, so a value with a NUL byte reaches it cut at the NUL. `head`
    /// (the method pointer, where the head starts in the read buffer) and the head's size let
    /// the rest of such a line be found: between a value's end and the next line (the next
    /// name, or the head's end after the last header) there is only the line end, two NULs
    /// for `\r\n` (four after the last header, with the blank line), and whitespace. A value
    /// that went on past a NUL is returned with a NUL and what followed it, for
    /// ``HTTPHeadRules`` to refuse. Only bytes inside the head are read. (A NUL right before a
    /// bare `\n` line end cannot be told from a `\r\n`; nothing after it is hidden.)
    static func headers(of connection: OpaquePointer, head: UnsafePointer<CChar>?) -> [(name: String, value: String)] {
        var scan = HeaderScan(start: head.map { UInt(bitPattern: $0) } ?? 0, size: UInt(pb_mhd_request_header_size(connection)))
        scan.headers.reserveCapacity(8)
        withUnsafeMutablePointer(to: &scan) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return .YES }
                let scan = cls.assumingMemoryBound(to: HeaderScan.self)
                scan.pointee.lineEnds(at: UInt(bitPattern: key), lineEndNULs: 2)
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
                // The value as libmicrohttpd holds it (in the connection's read buffer, valid
                // for this request): made a String once, not copied to an array first; the
                // bytes are kept until the next line shows whether a NUL hid more of it.
                let bytes = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
                scan.pointee.headers.append((name: name, value: String(decoding: bytes, as: UTF8.self)))
                scan.pointee.lastValue = bytes
                scan.pointee.valueEnd = value.map { UInt(bitPattern: $0) + UInt(valueSize) }
                return .YES
            }, pointer)
        }
        scan.lineEnds(at: scan.start + scan.size, lineEndNULs: 4)
        return scan.headers
    }

    /// The head's bounds and the headers read so far, passed through the iterator's `cls`.
    private struct HeaderScan {
        let start: UInt
        let size: UInt
        /// Each header's name and value (for a value that went on past a NUL, with the NUL and
        /// what followed it): the array returned, made once.
        var headers: [(name: String, value: String)] = []
        /// The last value's bytes in libmicrohttpd's buffer, while its line end is not checked yet.
        var lastValue = UnsafeRawBufferPointer(start: nil, count: 0)
        /// Just past the last value read, while its line end is not checked yet.
        var valueEnd: UInt?

        /// The line of the last value read ends where `next` begins: any byte between them
        /// other than whitespace, or more NULs than `lineEndNULs`, was part of the value,
        /// hidden behind a NUL; it is put back (after a NUL) into that value.
        mutating func lineEnds(at next: UInt, lineEndNULs: Int) {
            defer { valueEnd = nil }
            guard let end = valueEnd, start != 0, end >= start, next >= end, next <= start + size, !headers.isEmpty else { return }
            var nuls = 0
            var visible: [UInt8] = []
            for address in end..<next {
                guard let byte = UnsafePointer<UInt8>(bitPattern: address)?.pointee else { return }
                if byte == 0 { nuls += 1 } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") { visible.append(byte) }
            }
            if !visible.isEmpty || nuls > lineEndNULs {
                headers[headers.count - 1].value = String(decoding: Array(lastValue) + [0] + visible, as: UTF8.self)
            }
        }
    }

    /// The peer address as text (`127.0.0.1`, `::1`), or `""` if unknown. Written into 64
    /// bytes of the stack, not an array (one allocation per request).
    static func remoteAddress(of connection: OpaquePointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            buffer.initialize(repeating: 0)
            guard let base = buffer.baseAddress, pb_mhd_client_address(connection, base, socklen_t(buffer.count)) == 0 else { return "" }
            buffer[buffer.count - 1] = 0
            return String(cString: base)
        }
    }

    /// Queues `response`. Content-Length and Transfer-Encoding are the server's to set; a
    /// header libmicrohttpd rejects (say, a newline in a value) turns the answer into a bare 500.
    /// With `keepAlive`, a `Keep-Alive` header with that value follows the response's own.
    /// With `exchange` (the request's), the body is sent from the bytes the exchange keeps
    /// (``HTTPExchange/keepSentBody(_:)``) instead of a copy.
    static func queue(_ response: HTTPResponse, keepAlive: String? = nil, heldBy exchange: HTTPExchange? = nil, on connection: OpaquePointer) -> MHD_Result {
        guard let mhdResponse = makeResponse(response, keepAlive: keepAlive, heldBy: exchange) ?? makeResponse(HTTPResponse(status: 500), keepAlive: nil)
        else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), mhdResponse)
    }

    /// A libmicrohttpd response with `response`'s body and a copy of its headers (and a
    /// `Keep-Alive` header of `keepAlive` last), or nil. The body is copied, unless `exchange`
    /// keeps it (``HTTPExchange/keepSentBody(_:)``): then the response points at the exchange's
    /// bytes and holds the exchange (retained, released by libmicrohttpd's free callback when
    /// it destroys the response, after the last byte went out or the connection closed). The
    /// copy was one allocation of every answer.
    static func makeResponse(_ response: HTTPResponse, keepAlive: String?, heldBy exchange: HTTPExchange? = nil) -> OpaquePointer? {
        let created: OpaquePointer?
        if let exchange, let bytes = exchange.keepSentBody(response.body) {
            let held = Unmanaged.passRetained(exchange).toOpaque()
            created = MHD_create_response_from_buffer_with_free_callback_cls(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                { held in if let held { Unmanaged<HTTPExchange>.fromOpaque(held).release() } }, held)
            if created == nil { Unmanaged<HTTPExchange>.fromOpaque(held).release() }
        } else {
            created = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let created else { return nil }
        for header in response.headers {
            // Compared without lower-casing a copy of each name (a name over 15 bytes, such
            // as X-PushBridge-Request-Id, would be allocated).
            if header.name.isASCIICaseInsensitive("content-length") || header.name.isASCIICaseInsensitive("transfer-encoding") { continue }
            if addHeader(header.name, header.value, to: created) != .YES {
                MHD_destroy_response(created)
                return nil
            }
        }
        if let keepAlive, addHeader("Keep-Alive", keepAlive, to: created) != .YES {
            MHD_destroy_response(created)
            return nil
        }
        return created
    }

    /// Adds one header to `response` (libmicrohttpd copies both strings). Passed through
    /// `withCString`, which lends a native string's own NUL-terminated storage: a `String`
    /// handed straight to a `const char *` parameter is copied into a new array first (one
    /// allocation per name and per value of every answer).
    private static func addHeader(_ name: String, _ value: String, to response: OpaquePointer) -> MHD_Result {
        name.withCString { name in value.withCString { value in MHD_add_response_header(response, name, value) } }
    }
}
