import PushBridgeCore

extension AuditAttempt {
    /// The attempts of an `attempts` column (a JSON array of ``json`` objects); entries that
    /// are not such objects are skipped, and text that is not an array gives none.
    public static func parse(_ text: String?) -> [AuditAttempt] {
        guard let text, let array = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return array.compactMap { value in
            guard let object = value.objectValue, let at = object["at"]?.numberValue?.int64Value else { return nil }
            return AuditAttempt(at: at, status: object["status"]?.numberValue?.int64Value.map(Int.init), error: object["error"]?.stringValue,
                                latencyMs: object["latency_ms"]?.numberValue?.doubleValue ?? 0)
        }
    }
}
