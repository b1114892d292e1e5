import PushBridgeCore

/// Builds the APNs request OpenPush would send to one device ("APNs behaviour" in the
/// reference): headers and the `aps` payload.
struct SandboxAPNs {
    /// "start", "update" or "end".
    var event: String
    /// The app's bundle id.
    var bundleId: String
    /// The send time (server clock).
    var now: Int64
    /// → `content-state`.
    var contentState: JSONObject
    /// Start only: the activity type, forced from the path.
    var attributesType: String?
    /// Start only: → `attributes`.
    var attributes: JSONObject?
    /// Language map → alert title.
    var headings: JSONObject?
    /// Language map → alert body.
    var contents: JSONObject?
    /// Explicit `stale_date`, if any.
    var staleDate: Int64?
    /// End only: `dismissal_date`.
    var dismissalDate: Int64?
    /// Explicit priority, if any.
    var priority: Int64?
    /// `ios_relevance_score`, if any.
    var relevance: Double?
    /// First non-blank of `ios_sound` / `sound`.
    var sound: String?

    /// Seconds from send to `apns-expiration`.
    static let expirationSeconds: Int64 = 24 * 3600

    /// The default priority: 10 for start and end, 5 for update.
    var effectivePriority: Int64 { priority ?? (event == "update" ? 5 : 10) }

    /// The request to one device; `registeredStaleAt` is injected when `stale_date` is omitted
    /// (start and update only).
    func request(token: String, tokenKind: String, subscriptionId: String, registeredStaleAt: Int64?) -> JSONObject {
        let headers: JSONObject = [
            "apns-push-type": .string("liveactivity"),
            "apns-topic": .string(bundleId + ".push-type.liveactivity"),
            "apns-priority": .string(String(effectivePriority)),
            "apns-expiration": .string(String(now + Self.expirationSeconds)),
            "apns-id": .string(SandboxIDs.apnsId()),
        ]
        var aps = JSONObject()
        aps["timestamp"] = .int(now)
        aps["event"] = .string(event)
        aps["content-state"] = .object(contentState)
        if event == "start" {
            if let attributesType { aps["attributes-type"] = .string(attributesType) }
            if let attributes { aps["attributes"] = .object(attributes) }
            aps["input-push-token"] = .int(1)
        }
        if let alert { aps["alert"] = .object(alert) }
        if let relevance { aps["relevance-score"] = .double(min(1, max(0, relevance))) }
        if let stale = staleDate ?? (event == "end" ? nil : registeredStaleAt) { aps["stale-date"] = .int(stale) }
        if event == "end", let dismissalDate { aps["dismissal-date"] = .int(dismissalDate) }
        return [
            "subscription_id": .string(subscriptionId),
            "token": .string(Fingerprint.of(token)),
            "token_kind": .string(tokenKind),
            "headers": .object(headers),
            "payload": .object(["aps": .object(aps)]),
        ]
    }

    /// The alert, from the `en` entries, capped at 512 (title) and 2048 (body) characters.
    private var alert: JSONObject? {
        let title = headings?["en"]?.stringValue
        let body = contents?["en"]?.stringValue
        guard title != nil || body != nil else { return nil }
        var a = JSONObject()
        if let title { a["title"] = .string(String(title.prefix(OpenPushLimits.alertTitleCap))) }
        if let body { a["body"] = .string(String(body.prefix(OpenPushLimits.alertBodyCap))) }
        if let sound { a["sound"] = .string(sound) }
        return a
    }

    /// First non-blank of `ios_sound` then `sound`.
    static func sound(iosSound: String?, sound: String?) -> String? {
        [iosSound, sound].compactMap { $0 }.first { !OpenPushRules.isBlank($0) }
    }
}
