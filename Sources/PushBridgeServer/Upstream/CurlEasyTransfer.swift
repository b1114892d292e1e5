import CCurl

/// One upstream call in flight: uses a ``CurlEasyHandle`` (released when the call ends, so it
/// can serve the next one) and owns its header lines (in front of the shared list of its app's
/// headers) and its body bytes, one block (``CurlCallBlock``) freed with it. Confined to the I/O thread, so not
/// `Sendable`; curl reaches it from its callbacks through an unretained `Unmanaged` pointer,
/// which is safe because the loop holds a strong reference until the handle leaves the multi.
final class CurlEasyTransfer {
    /// The easy handle's owner (the loop returns it to its idle list when the call ends).
    let easy: CurlEasyHandle
    /// The easy handle.
    var handle: UnsafeMutableRawPointer { easy.raw }
    /// When `send` was called (latency is measured from here).
    let start: ContinuousClock.Instant
    private let continuation: UnsafeContinuation<UpstreamResponse, Never>
    /// The header lines and body curl reads; freed after `deinit` released the handle.
    private let block: CurlCallBlock
    private let maxResponseBytes: Int
    private var responseBytes = 0
    private var responseHeaders: [(name: String, value: String)] = []
    private var responseBody: [UInt8] = []
    private var exceededLimit = false
    private var completed = false

    /// Prepares the handle; throws (with nothing sent) when the request cannot be expressed.
    /// `sharedHeaders` is the list of `request.headers` (from the thread's ``CurlHeaderCache``).
    init(request: UpstreamRequest, easy: CurlEasyHandle, start: ContinuousClock.Instant, continuation: UnsafeContinuation<UpstreamResponse, Never>,
         configuration: UpstreamClientConfiguration, sharedHeaders: CurlHeaderList) throws(UpstreamFailure) {
        self.easy = easy
        self.start = start
        self.continuation = continuation
        self.maxResponseBytes = configuration.maxResponseBytes
        block = try CurlCallBlock(requestId: request.requestId, request.callHeaders, shared: sharedHeaders, body: request.body)
        // Fully initialized from here: if configuration throws, deinit frees everything.
        try configure(request, configuration)
    }

    deinit {
        // The handle no longer points at the body and the headers, freed after this (with `block`).
        easy.release()
    }

    /// Resumes the caller exactly once.
    func complete(_ response: UpstreamResponse) {
        guard !completed else { return }
        completed = true
        continuation.resume(returning: response)
    }

    /// Turns curl's result code into the caller's answer.
    func finish(_ code: CURLcode) {
        let latency = ContinuousClock.now - start
        if code == CURLE_OK {
            var status = 0
            _ = pb_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            complete(.reply(UpstreamReply(status: status, headers: responseHeaders, body: responseBody, latency: latency)))
            return
        }
        complete(.failure(failure(for: code, latency: latency)))
    }

    /// The failure for a result code, classified with what this transfer observed.
    func failure(for code: CURLcode, latency: Duration) -> UpstreamFailure {
        var requestBytes = 0
        _ = pb_curl_easy_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &requestBytes)
        let detail = String(cString: easy.errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        return UpstreamFailure.classify(code: code, requestBytesWritten: requestBytes, exceededLimit: exceededLimit, message: message, latency: latency)
    }

    /// Bytes of request header written so far (0 means nothing reached a socket).
    var requestBytesWritten: Int {
        var n = 0
        _ = pb_curl_easy_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &n)
        return n
    }

    // MARK: - Callbacks

    fileprivate func receiveBody(_ data: UnsafeRawBufferPointer) -> Int {
        guard admit(data.count) else { return 0 }
        responseBody.append(contentsOf: data)
        return data.count
    }

    fileprivate func receiveHeader(_ data: UnsafeRawBufferPointer) -> Int {
        guard admit(data.count) else { return 0 }
        if let header = Self.parseHeaderLine(data) {
            // Room for an answer's usual headers at once, not grown 1, 2, 4, 8 (a copy each).
            if responseHeaders.capacity == 0 { responseHeaders.reserveCapacity(Self.usualHeaderCount) }
            responseHeaders.append(header)
        } else if data.starts(with: "HTTP/".utf8) {
            responseHeaders.removeAll()  // a new response (after 100 Continue or a 1xx)
        }
        return data.count
    }

    /// How many header lines an upstream answer usually has (OpenPush's: about 6).
    static let usualHeaderCount = 12

    /// A header line (`Name: value`, CR/LF already or still at its end) as its lower-cased
    /// name and its value without surrounding spaces and tabs; nil for a status line, the
    /// blank line or a line without a colon. Parsed on bytes: curl hands over raw bytes, and
    /// names are ASCII tokens (anything else is lower-cased as a `String`).
    static func parseHeaderLine(_ data: UnsafeRawBufferPointer) -> (name: String, value: String)? {
        var end = data.count
        while end > 0, data[end - 1] == 0x0A || data[end - 1] == 0x0D { end -= 1 }
        guard !data.starts(with: "HTTP/".utf8), let colon = data[..<end].firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let nameBytes = UnsafeRawBufferPointer(rebasing: data[..<colon])
        let name: String
        if nameBytes.allSatisfy({ $0 < 0x80 }) {
            name = String(unsafeUninitializedCapacity: nameBytes.count) { buffer in
                for (i, b) in nameBytes.enumerated() { buffer[i] = (0x41...0x5A).contains(b) ? b | 0x20 : b }
                return nameBytes.count
            }
        } else {
            name = String(decoding: nameBytes, as: UTF8.self).lowercased()
        }
        var start = colon + 1
        while start < end, data[start] == 0x20 || data[start] == 0x09 { start += 1 }
        while end > start, data[end - 1] == 0x20 || data[end - 1] == 0x09 { end -= 1 }
        return (name: name, value: String(decoding: UnsafeRawBufferPointer(rebasing: data[start..<end]), as: UTF8.self))
    }

    private func admit(_ count: Int) -> Bool {
        responseBytes += count
        if responseBytes > maxResponseBytes { exceededLimit = true; return false }
        return true
    }
}

private func curlBodyCallback(_ ptr: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlEasyTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: ptr, count: size * count))
}

private func curlHeaderCallback(_ ptr: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlEasyTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: ptr, count: size * count))
}

extension CurlEasyTransfer {
    private func configure(_ request: UpstreamRequest, _ configuration: UpstreamClientConfiguration) throws(UpstreamFailure) {
        // What every call of the configuration shares is set once per handle.
        try easy.prepare(configuration, write: curlBodyCallback, header: curlHeaderCallback)
        try set(CURLOPT_URL, string: request.url)
        let deadline = min(request.timeout ?? configuration.timeout, configuration.timeout)
        try set(CURLOPT_TIMEOUT_MS, deadline.curlMilliseconds)
        try setMethodAndBody(request)
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(block.head))
        let me = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_WRITEDATA, pointer: me)
        try set(CURLOPT_HEADERDATA, pointer: me)
    }

    private func setMethodAndBody(_ request: UpstreamRequest) throws(UpstreamFailure) {
        let method = request.method.uppercased()
        switch method {
        case "GET" where request.body.isEmpty: try set(CURLOPT_HTTPGET, 1)
        case "HEAD": try set(CURLOPT_NOBODY, 1)
        default:
            if !request.body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
                try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(request.body.count))
                try set(CURLOPT_POSTFIELDS, pointer: block.body.baseAddress)
            }
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, string: method) }
        }
    }

    /// A non-empty name without `:`, whitespace or line breaks, and a value without line
    /// breaks. ASCII (every header PushBridge sends) is checked on bytes; anything else by
    /// `Character`, which knows the Unicode line separators.
    static func isValidHeader(name: String, value: String) -> Bool {
        if !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
           value.utf8.allSatisfy({ $0 < 0x80 && !(0x0A...0x0D).contains($0) }) {
            return true
        }
        return !name.isEmpty && !name.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline }) && !value.contains(where: \.isNewline)
    }

    private func set(_ option: CURLoption, _ value: Int) throws(UpstreamFailure) { try easy.set(option, value) }

    private func set(_ option: CURLoption, string: String) throws(UpstreamFailure) { try easy.set(option, string: string) }

    private func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(UpstreamFailure) { try easy.set(option, pointer: pointer) }
}
