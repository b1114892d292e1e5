import PushBridgeCore

/// JSON forms of the sandbox's records, as the SQLite store keeps them.
extension SandboxDevice {
    /// The device as JSON.
    var json: JSONValue {
        .object([
            "subscription_id": .string(subscriptionId),
            "push_token": pushToken.map(JSONValue.string) ?? .null,
            "openpush_id": .string(openPushId),
            "aliases": .object(JSONObject(members: aliases.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })),
            "segments": .array(segments.map(JSONValue.string)),
            "push_to_start_tokens": .object(JSONObject(members: pushToStartTokens.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })),
            "sequence": .int(sequence),
            "retired": .bool(retired),
        ])
    }

    /// A device from its JSON form; nil when the JSON is not one.
    init?(appId: String, json: JSONValue) {
        guard let o = json.objectValue, let sub = o["subscription_id"]?.stringValue else { return nil }
        func strings(_ key: String) -> [String: String] {
            var out: [String: String] = [:]
            for m in o[key]?.objectValue?.members ?? [] { out[m.key] = m.value.stringValue }
            return out
        }
        self.init(appId: appId, subscriptionId: sub, pushToken: o["push_token"]?.stringValue, openPushId: o["openpush_id"]?.stringValue,
                  aliases: strings("aliases"), segments: (o["segments"]?.arrayValue ?? []).compactMap(\.stringValue),
                  pushToStartTokens: strings("push_to_start_tokens"), sequence: o["sequence"]?.numberValue?.int64Value ?? 0,
                  retired: o["retired"]?.boolValue ?? false)
    }
}
