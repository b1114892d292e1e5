import CCurl

/// The header lines every call with the same shared headers sends (an app's `Authorization`
/// and `Content-Type` under one configuration, and the default `User-Agent` when no header
/// names one), as the `curl_slist` libcurl reads: built once and shared by every such call on
/// the thread that drives them (see ``CurlHeaderCache``), instead of one list per call. Owns
/// the list and frees it in `deinit`; a transfer keeps a strong reference while its handle
/// points at the list. Confined to that thread.
final class CurlHeaderList {
    /// The headers it was built from, to tell a list from another of the same hash.
    let headers: [(name: String, value: String)]
    /// Whether it ends with the configured `User-Agent`.
    let addsUserAgent: Bool
    /// The first node; nil for a list of no line.
    let raw: UnsafeMutablePointer<curl_slist>?

    /// Builds the list; throws (nothing sent) for a header libcurl must not send.
    init(headers: [(name: String, value: String)], userAgent: String?) throws(UpstreamFailure) {
        CurlGlobal.initializeOnce()
        self.headers = headers
        addsUserAgent = userAgent != nil
        var list: UnsafeMutablePointer<curl_slist>?
        do throws(UpstreamFailure) {
            for (name, value) in headers {
                try Self.check(name: name, value: value)
                // "Name;" is curl's way to send a header with an empty value ("Name:" removes it).
                list = try Self.append(value.isEmpty ? "\(name);" : "\(name): \(value)", to: list)
            }
            if let userAgent { list = try Self.append("User-Agent: \(userAgent)", to: list) }
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        raw = list
    }

    deinit { curl_slist_free_all(raw) }

    /// Whether it was built from exactly `headers`, with the user agent or without.
    func matches(_ headers: [(name: String, value: String)], addsUserAgent: Bool) -> Bool {
        guard self.addsUserAgent == addsUserAgent, self.headers.count == headers.count else { return false }
        // Byte for byte: `==` on strings would take one spelling of a letter for another.
        for (mine, theirs) in zip(self.headers, headers)
        where !mine.name.utf8.elementsEqual(theirs.name.utf8) || !mine.value.utf8.elementsEqual(theirs.value.utf8) { return false }
        return true
    }

    /// Throws the failure for a header that is not ``CurlEasyTransfer/isValidHeader(name:value:)``.
    static func check(name: String, value: String) throws(UpstreamFailure) {
        guard CurlEasyTransfer.isValidHeader(name: name, value: value) else {
            throw UpstreamFailure(kind: .other, message: "invalid request header \"\(name.filter { !$0.isNewline })\"", provablyNotSent: true)
        }
    }

    private static func append(_ line: String, to list: UnsafeMutablePointer<curl_slist>?) throws(UpstreamFailure) -> UnsafeMutablePointer<curl_slist> {
        guard let appended = curl_slist_append(list, line) else {
            throw UpstreamFailure(kind: .other, message: "out of memory building headers", provablyNotSent: true)
        }
        return appended
    }
}
