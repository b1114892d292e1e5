/// The shared header lists of one thread's transfers (``CurlHeaderList``), by headers: a call
/// whose shared headers were sent before reuses their list. Bounded: past ``capacity`` lists
/// it starts again (an operator with more apps than that pays a build per call, as before).
/// Confined to the thread that drives the transfers.
final class CurlHeaderCache {
    /// Lists kept at most.
    static let capacity = 256

    /// The configured `User-Agent`, ending a list when no header names one.
    private let userAgent: String
    /// The lists by the hash of their headers (a hash shared by two sets holds both).
    private var lists: [Int: [CurlHeaderList]] = [:]
    /// How many lists `lists` holds.
    private var count = 0
    /// Lists built so far (what the cache saves shows here: one per distinct set of headers).
    private(set) var built = 0

    /// A cache whose lists end with `User-Agent: userAgent` when no header names one.
    init(userAgent: String) { self.userAgent = userAgent }

    /// The list for `headers`, built on first use; `addUserAgent` when no header of the call
    /// (shared or not) is a `User-Agent`.
    func list(for headers: [(name: String, value: String)], addUserAgent: Bool) throws(UpstreamFailure) -> CurlHeaderList {
        var hasher = Hasher()
        hasher.combine(addUserAgent)
        for (name, value) in headers {
            hasher.combine(name)
            hasher.combine(value)
        }
        let key = hasher.finalize()
        if let found = lists[key]?.first(where: { $0.matches(headers, addsUserAgent: addUserAgent) }) { return found }
        let made = try CurlHeaderList(headers: headers, userAgent: addUserAgent ? userAgent : nil)
        if count >= Self.capacity {
            lists.removeAll(keepingCapacity: true)
            count = 0
        }
        lists[key, default: []].append(made)
        count += 1
        built += 1
        return made
    }
}
