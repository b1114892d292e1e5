import CMicroHTTPD

/// Reads from and answers on one `MHD_Connection *`. Call only from libmicrohttpd's callbacks
/// for that connection.
enum MHDConnection {
    /// The request headers, in arrival order, names as sent.
    static func headers(of connection: OpaquePointer) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let headers = cls.assumingMemoryBound(to: [(name: String, value: String)].self)
                headers.pointee.append((name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
                return .YES
            }, pointer)
        }
        return headers
    }

    /// The peer address as text (`127.0.0.1`, `::1`), or `""` if unknown.
    static func remoteAddress(of connection: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let status = buffer.withUnsafeMutableBufferPointer { buffer in
            pb_mhd_client_address(connection, buffer.baseAddress, socklen_t(buffer.count))
        }
        guard status == 0 else { return "" }
        return buffer.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
    }

    /// Queues `response`. Content-Length and Transfer-Encoding are the server's to set; a
    /// header libmicrohttpd rejects (say, a newline in a value) turns the answer into a bare 500.
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        guard let mhdResponse = makeResponse(response) ?? makeResponse(HTTPResponse(status: 500)) else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), mhdResponse)
    }

    /// A libmicrohttpd response with a copy of `response`'s body and headers, or nil.
    private static func makeResponse(_ response: HTTPResponse) -> OpaquePointer? {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        for header in response.headers {
            let name = header.name.lowercased()
            if name == "content-length" || name == "transfer-encoding" { continue }
            if MHD_add_response_header(created, header.name, header.value) != .YES {
                MHD_destroy_response(created)
                return nil
            }
        }
        return created
    }
}
