import CCurl

/// What libcurl reads of one call from memory the call owns, in one allocation: its header
/// lines in front of its shared ``CurlHeaderList`` (`Expect:`, never wait for `100 Continue`,
/// and the call's own headers: a request id, a caller's headers passed through) as
/// `curl_slist` nodes whose last one links to the shared list, their text, then a copy of the
/// request body (`CURLOPT_POSTFIELDS`). The lines and the body were two allocations, and the
/// object holding the lines a third. Frees the block when it goes (with its
/// ``CurlEasyTransfer``, after the handle let go of it); keeps the shared list alive as long
/// as the nodes point at it. Confined to the thread that drives the call.
struct CurlCallBlock: ~Copyable {
    /// The first node, what `CURLOPT_HTTPHEADER` is given.
    let head: UnsafeMutablePointer<curl_slist>
    /// The body's bytes (`count` may be 0: the pointer is still a valid one).
    let body: UnsafeRawBufferPointer
    /// The nodes, their text and the body: one block, freed in `deinit`.
    private let memory: UnsafeMutableRawPointer
    /// The list the last node links to, kept alive while the nodes point at it.
    private let shared: CurlHeaderList

    /// The lines for `requestId` (``UpstreamRequest/requestId``) and `headers` followed by
    /// `shared`'s, and `body`; throws (nothing sent, and nothing allocated) for a header
    /// libcurl must not send.
    init(requestId: String? = nil, _ headers: [(name: String, value: String)], shared: CurlHeaderList, body: [UInt8]) throws(UpstreamFailure) {
        if let requestId { try CurlHeaderList.check(name: UpstreamRequest.requestIdHeader, value: requestId) }
        for (name, value) in headers { try CurlHeaderList.check(name: name, value: value) }
        // The request id's line is the first of the call's own, as a call header of its name.
        let first = requestId.map { (name: UpstreamRequest.requestIdHeader, value: $0) }
        let own = first == nil ? 0 : 1
        func header(_ index: Int) -> (name: String, value: String) {
            if index < own, let first { return first }
            return headers[index - own]
        }
        // Each line written straight into the block from the name and value (no array of
        // lines, no joined string per header: every upstream call makes one).
        // "Name;" is curl's way to send a header with an empty value ("Name:" removes it).
        let expect = "Expect:".utf8
        let count = 1 + own + headers.count
        let nodesBytes = count * MemoryLayout<curl_slist>.stride
        var textBytes = expect.count + 1
        for index in 0..<(count - 1) {
            let (name, value) = header(index)
            textBytes += name.utf8.count + (value.isEmpty ? 1 : 2 + value.utf8.count) + 1
        }
        memory = UnsafeMutableRawPointer.allocate(byteCount: nodesBytes + textBytes + body.count, alignment: MemoryLayout<curl_slist>.alignment)
        let nodes = memory.bindMemory(to: curl_slist.self, capacity: count)
        var text = (memory + nodesBytes).assumingMemoryBound(to: CChar.self)
        func write<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for byte in bytes {
                text.pointee = CChar(bitPattern: byte)
                text += 1
            }
        }
        for i in 0..<count {
            let start = text
            if i == 0 {
                write(expect)
            } else {
                let (name, value) = header(i - 1)
                write(name.utf8)
                write(value.isEmpty ? ";".utf8 : ": ".utf8)
                write(value.utf8)
            }
            text.pointee = 0
            text += 1
            (nodes + i).initialize(to: curl_slist(data: start, next: i + 1 < count ? nodes + i + 1 : shared.raw))
        }
        let bodyStart = memory + nodesBytes + textBytes
        body.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress, !bytes.isEmpty { bodyStart.copyMemory(from: source, byteCount: bytes.count) }
        }
        self.body = UnsafeRawBufferPointer(start: bodyStart, count: body.count)
        head = nodes
        self.shared = shared
    }

    deinit { memory.deallocate() }
}
