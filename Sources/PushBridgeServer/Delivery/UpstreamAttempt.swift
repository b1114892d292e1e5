import PushBridgeCore

/// One attempt at sending a request upstream (OpenPush, or a legacy provider in observe and
/// shadow modes): when it started, what came back (a status or a transport error), how long
/// it took. Delivery makes them, the audit stores them (``json``) and reads them back
/// (``parse(_:)``): one type from the send to the audit column.
public struct UpstreamAttempt: Sendable, Equatable {
    /// When the attempt started, Unix milliseconds.
    public var startedAt: Int64
    /// The HTTP status, when an answer came.
    public var status: Int?
    /// The transport error, when none did: its kind and curl's code (``UpstreamFailure/summary``).
    public var error: String?
    /// curl's full text for the same error, for the log only (it names the upstream's address).
    public var errorDetail: String?
    /// How long it took, milliseconds.
    public var latencyMs: Double
    /// The answer's body (truncated); not stored in the `attempts` column (nor is ``errorDetail``).
    public var body: String?
    /// Where it went: `openpush` or `legacy:<dialect>`; nil in rows written before a request
    /// could reach both sides (read as OpenPush's, or the legacy provider's in observe).
    public var provider: String?
    /// Whether its side's answer is the one the caller got; nil where ``provider`` is.
    public var answered: Bool?

    /// An attempt.
    public init(startedAt: Int64, status: Int? = nil, error: String? = nil, errorDetail: String? = nil, latencyMs: Double, body: String? = nil) {
        self.startedAt = startedAt
        self.status = status
        self.error = error
        self.errorDetail = errorDetail
        self.latencyMs = latencyMs
        self.body = body
    }

    /// `{"at", "status" | "error", "latency_ms", "provider", "answered"}`, as the audit's
    /// `attempts` column holds it (the last two only when known, so older rows read the same).
    public var json: JSONValue {
        var object = JSONObject()
        object.reserveCapacity(5)
        object.appendUnchecked("at", .int(startedAt))
        if let status { object.appendUnchecked("status", .int(Int64(status))) }
        if let error { object.appendUnchecked("error", .string(error)) }
        object.appendUnchecked("latency_ms", .double(latencyMs))
        if let provider { object.appendUnchecked("provider", .string(provider)) }
        if let answered { object.appendUnchecked("answered", .bool(answered)) }
        return .object(object)
    }

    /// The attempts of an `attempts` column (a JSON array of ``json`` objects); entries that
    /// are not such objects are skipped, and text that is not an array gives none.
    public static func parse(_ text: String?) -> [UpstreamAttempt] {
        guard let text, let array = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return array.compactMap { value in
            guard let object = value.objectValue, let at = object["at"]?.numberValue?.int64Value else { return nil }
            var attempt = UpstreamAttempt(startedAt: at, status: object["status"]?.numberValue?.int64Value.map(Int.init), error: object["error"]?.stringValue,
                                          latencyMs: object["latency_ms"]?.numberValue?.doubleValue ?? 0)
            attempt.provider = object["provider"]?.stringValue
            if case .bool(let answered)? = object["answered"] { attempt.answered = answered }
            return attempt
        }
    }
}
