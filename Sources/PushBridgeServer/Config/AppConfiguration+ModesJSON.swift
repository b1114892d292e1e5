import PushBridgeCore

extension AppConfiguration {
    /// Reads `mode`, `route_modes` and `shadow` of one app into `app`.
    static func decodeModes(_ o: JSONObject, at path: String, into app: inout AppConfiguration, _ r: ConfigReader) {
        if let text = r.string(o, "mode", at: path) {
            if let m = MigrationMode(rawValue: text) { app.mode = m } else { r.report("\(path).mode", "must be one of observe, shadow, openpush") }
        }
        if let routes = r.object(o["route_modes"], at: "\(path).route_modes", allowed: RouteKind.allCases.map(\.rawValue)) {
            for member in routes.members {
                guard let route = RouteKind(rawValue: member.key) else { continue }
                guard let text = member.value.stringValue, let m = MigrationMode(rawValue: text) else {
                    r.report("\(path).route_modes.\(member.key)", "must be one of observe, shadow, openpush")
                    continue
                }
                app.routeModes[route] = m
            }
        }
        app.shadow = decodeShadow(o["shadow"], at: "\(path).shadow", r)
        let modes = Set([app.mode] + Array(app.routeModes.values))
        if modes.contains(.shadow), app.shadow == nil, o["shadow"] == nil {
            r.report("\(path).shadow", "required when the app or one of its routes is in shadow mode")
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
