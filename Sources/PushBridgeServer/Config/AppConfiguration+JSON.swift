import PushBridgeCore

extension AppConfiguration {
    private static let keys = ["name", "dialect", "source_app_id", "openpush", "callers", "pass_through_key", "segment_map", "unmapped_segments", "devices", "mode", "route_modes", "shadow", "rollout"]

    /// Decodes `apps`, reporting problems and cross-app conflicts (duplicate names or source ids).
    static func decodeAll(_ values: [JSONValue]?, _ r: ConfigReader) -> [AppConfiguration] {
        guard let values else { r.report("apps", "required: at least one app"); return [] }
        if values.isEmpty { r.report("apps", "at least one app is required") }
        var apps: [AppConfiguration] = []
        var names = Set<String>(), sources = Set<String>()
        for (i, value) in values.enumerated() {
            let path = "apps[\(i)]"
            guard let app = decode(value, at: path, r) else { continue }
            if !names.insert(app.name).inserted { r.report("\(path).name", "another app already has this name") }
            if !sources.insert("\(app.dialect.rawValue)/\(app.sourceAppId)").inserted {
                r.report("\(path).source_app_id", "another \(app.dialect.rawValue) app already has this source app id")
            }
            apps.append(app)
        }
        return apps
    }

    private static func decode(_ value: JSONValue, at path: String, _ r: ConfigReader) -> AppConfiguration? {
        guard let o = r.object(value, at: path, allowed: keys) else { return nil }
        let name = r.string(o, "name", at: path, required: true)
        var dialect: DialectName?
        if let d = r.string(o, "dialect", at: path, required: true) {
            dialect = DialectName(rawValue: d)
            if dialect == nil { r.report("\(path).dialect", "must be one of onesignal, pushwoosh, buzzkit") }
        }
        let source = r.string(o, "source_app_id", at: path, required: true)
        let passThrough = r.bool(o, "pass_through_key", at: path, default: false)

        let opPath = "\(path).openpush"
        let op = r.object(o["openpush"], at: opPath, allowed: ["app_id", "rest_key_env"])
        if o["openpush"] == nil { r.report(opPath, "required") }
        let appId = op.flatMap { r.string($0, "app_id", at: opPath, required: true) }
        if let appId, let problem = OpenPushPath.problem(segment: appId) { r.report("\(opPath).app_id", problem) }
        let key = op.flatMap { r.secretFromEnvironment($0, "rest_key_env", at: opPath, required: !passThrough, fallback: appId.flatMap { r.sandboxRestKeys[$0] }) }

        let declared = r.array(o, "callers", at: path)
        let callers = decodeCallers(declared, at: "\(path).callers", r)
        // A caller whose key could not be read has its own problem already; this one is for none declared.
        if (declared ?? []).isEmpty && !passThrough {
            r.report("\(path).callers", "at least one caller credential is required unless pass_through_key is true")
        }
        let segments = decodeSegmentMap(o["segment_map"], at: "\(path).segment_map", r)
        let unmapped = decodeUnmappedSegments(r.string(o, "unmapped_segments", at: path), at: "\(path).unmapped_segments", r)
        if dialect == .buzzkit, o["segment_map"] != nil || o["unmapped_segments"] != nil {
            r.report("\(path).\(o["segment_map"] != nil ? "segment_map" : "unmapped_segments")", "BuzzKit requests target a subscriber, never a segment; remove it")
        }
        let devices = decodeDevices(r.string(o, "devices", at: path), at: "\(path).devices", r)

        guard let name, let dialect, let source, let appId else { return nil }
        var app = AppConfiguration(name: name, dialect: dialect, sourceAppId: source, openPushAppId: appId, openPushKey: key, callers: callers, passThroughKey: passThrough, segmentMap: segments, unmappedSegments: unmapped, devices: devices)
        decodeModes(o, at: path, into: &app, r)
        return app
    }

    private static func decodeCallers(_ values: [JSONValue]?, at path: String, _ r: ConfigReader) -> [CallerCredential] {
        var out: [CallerCredential] = []
        for (i, value) in (values ?? []).enumerated() {
            let p = "\(path)[\(i)]"
            guard let o = r.object(value, at: p, allowed: ["key_env", "key_sha256"]) else { continue }
            switch (o["key_env"] != nil, o["key_sha256"] != nil) {
            case (true, false):
                if let secret = r.secretFromEnvironment(o, "key_env", at: p) { out.append(CallerCredential(secret: secret.value)) }
            case (false, true):
                guard let hex = r.string(o, "key_sha256", at: p) else { continue }
                if let credential = CallerCredential(sha256Hex: hex) { out.append(credential) } else { r.report("\(p).key_sha256", "must be a full SHA-256: 64 hex digits") }
            default:
                r.report(p, "exactly one of key_env or key_sha256 is required")
            }
        }
        return out
    }

    private static func decodeSegmentMap(_ value: JSONValue?, at path: String, _ r: ConfigReader) -> [String: String] {
        guard let value else { return [:] }
        guard let o = value.objectValue else { r.report(path, "expected an object, found \(value.typeName)"); return [:] }
        var map: [String: String] = [:]
        for member in o.members {
            guard let segment = member.value.stringValue, !segment.isEmpty else {
                r.report("\(path).\(member.key)", "expected a non-empty segment id string")
                continue
            }
            if map.updateValue(segment, forKey: member.key) != nil { r.report("\(path).\(member.key)", "duplicate key") }
        }
        return map
    }

    private static func decodeUnmappedSegments(_ text: String?, at path: String, _ r: ConfigReader) -> TranslationContext.UnmappedSegments? {
        guard let text else { return nil }
        if let value = TranslationContext.UnmappedSegments(rawValue: text) { return value }
        r.report(path, "must be \"forward\" or \"reject\"")
        return nil
    }

    private static func decodeDevices(_ text: String?, at path: String, _ r: ConfigReader) -> DevicesMapping {
        guard let text else { return .subscriptionIds }
        if text == "subscription_ids" { return .subscriptionIds }
        if text.hasPrefix("alias:"), text.count > 6 { return .alias(String(text.dropFirst(6))) }
        r.report(path, "must be \"subscription_ids\" or \"alias:<label>\"")
        return .subscriptionIds
    }
}
