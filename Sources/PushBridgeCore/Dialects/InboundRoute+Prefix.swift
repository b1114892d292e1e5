extension InboundRoute {
    /// The dialect a path belongs to by its prefix, for a request no route matched: `/json/…`
    /// is Pushwoosh's API, `/apps/…`, `/api/v1/…` and `/notifications` OneSignal's, `/v1/…`
    /// BuzzKit's; nil for anything else. The query string is ignored.
    public static func dialect(ofPrefix rawPath: String) -> DialectName? {
        let path = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if path.hasPrefix("/json/") { return .pushwoosh }
        if path.hasPrefix("/apps/") || path.hasPrefix("/api/v1/") || path == "/notifications" || path.hasPrefix("/notifications/") {
            return .onesignal
        }
        if path.hasPrefix("/v1/") { return .buzzkit }
        return nil
    }
}
