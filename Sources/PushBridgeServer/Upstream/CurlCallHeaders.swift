import CCurl

/// The header lines of one call, in front of its shared ``CurlHeaderList``: `Expect:` (never
/// wait for `100 Continue`) and the call's own headers (a request id, a caller's headers passed
/// through), as `curl_slist` nodes whose last one links to the shared list. The nodes and their
/// text are one allocation, which it owns and frees in `deinit`; it keeps the shared list alive
/// as long as the nodes point at it. Confined to the thread that drives the call.
final class CurlCallHeaders {
    /// The first node, what `CURLOPT_HTTPHEADER` is given.
    let head: UnsafeMutablePointer<curl_slist>
    /// The nodes, then their text: one block, freed in `deinit`.
    private let memory: UnsafeMutableRawPointer
    /// The list the last node links to, kept alive while the nodes point at it.
    private let shared: CurlHeaderList

    /// The lines for `headers` followed by `shared`'s; throws (nothing sent) for a header
    /// libcurl must not send.
    init(_ headers: [(name: String, value: String)], shared: CurlHeaderList) throws(UpstreamFailure) {
        var lines: [String] = ["Expect:"]
        lines.reserveCapacity(1 + headers.count)
        for (name, value) in headers {
            try CurlHeaderList.check(name: name, value: value)
            // "Name;" is curl's way to send a header with an empty value ("Name:" removes it).
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        let nodesBytes = lines.count * MemoryLayout<curl_slist>.stride
        let textBytes = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        memory = UnsafeMutableRawPointer.allocate(byteCount: nodesBytes + textBytes, alignment: MemoryLayout<curl_slist>.alignment)
        let nodes = memory.bindMemory(to: curl_slist.self, capacity: lines.count)
        var text = (memory + nodesBytes).assumingMemoryBound(to: CChar.self)
        for (i, line) in lines.enumerated() {
            let start = text
            for byte in line.utf8 {
                text.pointee = CChar(bitPattern: byte)
                text += 1
            }
            text.pointee = 0
            text += 1
            (nodes + i).initialize(to: curl_slist(data: start, next: i + 1 < lines.count ? nodes + i + 1 : shared.raw))
        }
        head = nodes
        self.shared = shared
    }

    deinit { memory.deallocate() }
}
