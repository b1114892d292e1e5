import PushBridgeCore

extension AppConfiguration {
    /// Reads `mode`, `route_modes`, `shadow` and `rollout` of one app into `app`.
    static func decodeModes(_ o: JSONObject, at path: String, into app: inout AppConfiguration, _ r: ConfigReader) {
        if let text = r.string(o, "mode", at: path) {
            if let m = MigrationMode(rawValue: text) { app.mode = m } else { r.report("\(path).mode", "must be one of \(MigrationMode.spelled)") }
        }
        if let routes = r.object(o["route_modes"], at: "\(path).route_modes", allowed: RouteKind.allCases.map(\.rawValue)) {
            for member in routes.members {
                guard let route = RouteKind(rawValue: member.key) else { continue }
                guard let text = member.value.stringValue, let m = MigrationMode(rawValue: text) else {
                    r.report("\(path).route_modes.\(member.key)", "must be one of \(MigrationMode.spelled)")
                    continue
                }
                app.routeModes[route] = m
            }
        }
        for (route, m) in app.routeModes where m == .rollout && route != .start && route != .send {
            r.report("\(path).route_modes.\(route.rawValue)", "rollout places new starts only; give it as the app's mode or route_modes.start (BuzzKit: send)")
        }
        app.shadow = decodeShadow(o["shadow"], at: "\(path).shadow", r)
        if app.modesInUse.contains(.shadow), app.shadow == nil, o["shadow"] == nil {
            r.report("\(path).shadow", "required when the app or one of its routes is in shadow mode")
        }
        app.rollout = RolloutSettings.decode(o["rollout"], at: "\(path).rollout", r)
        if app.modesInUse.contains(.rollout), app.rollout == nil, o["rollout"] == nil {
            r.report("\(path).rollout", "required when the app or one of its routes is in rollout mode")
        }
    }

    private static func decodeShadow(_ value: JSONValue?, at path: String, _ r: ConfigReader) -> ShadowSettings? {
        let keys = ["primary", "sample_percent", "openpush_base_url", "openpush_app_id", "rest_key_env", "segment"]
        guard let o = r.object(value, at: path, allowed: keys) else { return nil }
        var s = ShadowSettings()
        if let p = r.string(o, "primary", at: path) {
            if let primary = ShadowPrimary(rawValue: p) { s.primary = primary } else { r.report("\(path).primary", "must be \"legacy\" or \"openpush\"") }
        }
        if let n = o["sample_percent"] {
            if let v = n.numberValue?.int64Value, (0...100).contains(v) { s.samplePercent = Int(v) } else { r.report("\(path).sample_percent", "must be an integer from 0 to 100") }
        }
        if let url = r.string(o, "openpush_base_url", at: path) {
            if url != "sandbox", !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                r.report("\(path).openpush_base_url", "must be an absolute http:// or https:// URL, or \"sandbox\"")
            }
            s.openPushBaseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        s.openPushAppId = r.string(o, "openpush_app_id", at: path)
        s.openPushKey = r.secretFromEnvironment(o, "rest_key_env", at: path, required: s.openPushAppId != nil)
        s.segment = r.string(o, "segment", at: path)
        return s
    }
}
