import Synchronization

/// The headers every call with one REST key sends to OpenPush (`Authorization: Key …` and
/// `Content-Type`), made once per key and handed out again: built per call they were two
/// allocations on every upstream call (the array and the `Key …` text), for the same few keys
/// (one per configured app). Shared by the copies of one ``OpenPushForwarder``, from any thread.
final class OpenPushKeyHeaders: Sendable {
    /// Most keys kept; past it the table starts over (keys are configured apps: few).
    static let capacity = 256

    private let byKey = Mutex<[String: [(name: String, value: String)]]>([:])

    /// The shared headers of a call with `key`.
    func headers(for key: String) -> [(name: String, value: String)] {
        byKey.withLock { table in
            if let headers = table[key] { return headers }
            if table.count >= Self.capacity { table.removeAll() }
            let headers = [(name: "Authorization", value: "Key \(key)"), (name: "Content-Type", value: "application/json")]
            table[key] = headers
            return headers
        }
    }
}
