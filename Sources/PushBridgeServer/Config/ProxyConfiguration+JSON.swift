import Foundation
import PushBridgeCore

extension ProxyConfiguration {
    /// Loads and validates a configuration file. Secrets come from `environment` (pass
    /// `ProcessInfo.processInfo.environment` in production, a dictionary in tests).
    public static func load(fileAt path: String, environment: [String: String]) throws(ConfigurationError) -> ProxyConfiguration {
        try decodeChecked(parseFile(at: path), environment: environment)
    }

    /// The file's JSON; a problem naming the file and why it cannot be read or where its JSON
    /// breaks (line, column and byte).
    static func parseFile(at path: String) throws(ConfigurationError) -> JSONValue {
        var isDirectory: ObjCBool = false
        let reason: String?
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            reason = "cannot read the configuration file: no such file"
        } else if isDirectory.boolValue {
            reason = "cannot read the configuration file: it is a directory"
        } else if !FileManager.default.isReadableFile(atPath: path) {
            reason = "cannot read the configuration file: permission denied"
        } else {
            reason = nil
        }
        if let reason { throw ConfigurationError(problems: [.init(path: path, message: reason)]) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(problems: [.init(path: path, message: "cannot read the configuration file")])
        }
        let bytes = Array(data)
        do {
            return try JSONParser.parse(bytes)
        } catch {
            let (line, column) = position(of: error.offset, in: bytes)
            throw ConfigurationError(problems: [.init(path: path, message: "not valid JSON at line \(line), column \(column) (byte \(error.offset)): \(error.reason)")])
        }
    }

    /// The 1-based line and column of a byte offset.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    /// Parses and validates configuration JSON, reporting every problem at once.
    public static func load(json: [UInt8], environment: [String: String]) throws(ConfigurationError) -> ProxyConfiguration {
        let root: JSONValue
        do {
            root = try JSONParser.parse(json)
        } catch {
            throw ConfigurationError(problems: [.init(path: "", message: "configuration is not valid JSON: \(error.description)")])
        }
        return try decodeChecked(root, environment: environment)
    }

    private static func decodeChecked(_ root: JSONValue, environment: [String: String]) throws(ConfigurationError) -> ProxyConfiguration {
        let reader = ConfigReader(environment: environment)
        let configuration = decode(root, reader)
        guard reader.problems.isEmpty, let configuration else {
            throw ConfigurationError(problems: reader.problems)
        }
        return configuration
    }

    /// `pushbridge check-config FILE`: every problem in the file, one line each; empty when valid.
    public static func check(fileAt path: String, environment: [String: String]) -> [String] {
        do {
            _ = try load(fileAt: path, environment: environment)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    private static let topLevelKeys = ["listen", "log_format", "audit_db", "instance_name", "limits", "openpush", "sandbox", "admin", "apps", "legacy", "legacy_doubles", "delivery", "shadow_queue", "tls",
                                         "audit_retention_days", "audit_max_mib", "audit_min_free_mib", "readiness", "instances"]
        + ["allow_legacy_removal"]

    private static func decode(_ root: JSONValue, _ r: ConfigReader) -> ProxyConfiguration? {
        guard let top = r.object(root, at: "", allowed: topLevelKeys) else {
            if root.objectValue == nil { r.report("", "the configuration must be a JSON object") }
            return nil
        }
        let sandbox = decodeSandbox(top["sandbox"], r)
        var configuration = ProxyConfiguration(apps: [])
        if let listen = r.listenAddress(top, "listen", at: "") { configuration.listen = listen }
        if let format = r.string(top, "log_format", at: "") {
            if let f = LogFormat(rawValue: format) { configuration.logFormat = f } else { r.report("log_format", "must be \"logfmt\" or \"json\"") }
        }
        if let audit = r.string(top, "audit_db", at: "") {
            configuration.auditDatabasePath = audit
            if PostgresURI.isPostgres(audit) {
                do throws(PostgresError) { _ = try PostgresURI(audit) } catch { r.report("audit_db", error.message) }
            }
        }
        if let name = r.string(top, "instance_name", at: "") {
            if name.isEmpty || name.count > 200 || name.contains(where: { $0.isNewline }) {
                r.report("instance_name", "must be 1 to 200 characters on one line")
            } else {
                configuration.instanceName = name
            }
        }
        configuration.limits = decodeLimits(top["limits"], r)
        configuration.sandbox = sandbox
        configuration.openPush = decodeOpenPush(top["openpush"], required: !sandbox.embedded, r)
        configuration.admin = decodeAdmin(top["admin"], demo: sandbox.embedded && top["openpush"] == nil, r)
        if sandbox.embedded, top["openpush"] == nil, let seed = sandbox.seedPath, let parsed = try? SandboxSeed.load(path: seed, environment: r.environment) {
            r.sandboxRestKeys = Dictionary(parsed.apps.map { ($0.app.id, $0.app.restKey) }, uniquingKeysWith: { first, _ in first })
        }
        configuration.apps = AppConfiguration.decodeAll(r.array(top, "apps", at: ""), r)
        configuration.legacy = decodeLegacy(top["legacy"], r)
        configuration.legacyDoubles = decodeLegacyDoubles(top["legacy_doubles"], r)
        configuration.allowLegacyRemoval = r.bool(top, "allow_legacy_removal", at: "", default: false)
        (configuration.delivery, configuration.schedulerDatabase) = decodeDelivery(top["delivery"], r)
        configuration.shadowQueue = decodeShadowQueue(top["shadow_queue"], r)
        configuration.tls = decodeTLS(top["tls"], at: "tls", r)
        configuration.auditLimits = decodeAuditLimits(top, r)
        configuration.readiness = ReadinessThresholds.decode(top["readiness"], r)
        configuration.instances = InstanceSettings.decode(top["instances"], r)
        checkModes(configuration, r)
        return configuration
    }

    private static func decodeLimits(_ value: JSONValue?, _ r: ConfigReader) -> Limits {
        var limits = Limits()
        let keys = ["max_body_bytes", "max_connections", "per_ip_connections", "header_memory_bytes", "max_head_bytes", "max_request_target_bytes", "idle_timeout_seconds", "request_timeout_seconds", "upstream_connect_timeout_ms", "upstream_timeout_ms",
                    "max_activities"]
        guard let o = r.object(value, at: "limits", allowed: keys) else { return limits }
        limits.maxBodyBytes = r.positiveInt(o, "max_body_bytes", at: "limits", default: limits.maxBodyBytes)
        limits.maxConnections = r.positiveInt(o, "max_connections", at: "limits", default: limits.maxConnections)
        limits.perIPConnections = r.positiveInt(o, "per_ip_connections", at: "limits", default: limits.perIPConnections)
        limits.headerMemoryBytes = r.positiveInt(o, "header_memory_bytes", at: "limits", default: limits.headerMemoryBytes)
        limits.maxHeadBytes = r.positiveInt(o, "max_head_bytes", at: "limits", default: min(limits.maxHeadBytes, limits.headerMemoryBytes * 3 / 4))
        limits.maxRequestTargetBytes = r.positiveInt(o, "max_request_target_bytes", at: "limits", default: limits.maxRequestTargetBytes)
        limits.idleTimeout = .seconds(r.positiveInt(o, "idle_timeout_seconds", at: "limits", default: 30))
        limits.requestTimeout = .seconds(r.positiveInt(o, "request_timeout_seconds", at: "limits", default: 10))
        limits.upstreamConnectTimeout = .milliseconds(r.positiveInt(o, "upstream_connect_timeout_ms", at: "limits", default: 2000))
        limits.upstreamTimeout = .milliseconds(r.positiveInt(o, "upstream_timeout_ms", at: "limits", default: 10_000))
        if limits.maxHeadBytes >= limits.headerMemoryBytes || limits.maxHeadBytes < 256 {
            r.report("limits.max_head_bytes", "must be at least 256 and less than limits.header_memory_bytes (\(limits.headerMemoryBytes))")
        }
        if limits.maxRequestTargetBytes < 16 { r.report("limits.max_request_target_bytes", "must be at least 16") }
        if limits.perIPConnections > limits.maxConnections { r.report("limits.per_ip_connections", "must not exceed limits.max_connections") }
        if limits.upstreamConnectTimeout > limits.upstreamTimeout { r.report("limits.upstream_connect_timeout_ms", "must not exceed limits.upstream_timeout_ms") }
        return limits
    }

    private static func decodeOpenPush(_ value: JSONValue?, required: Bool, _ r: ConfigReader) -> OpenPushUpstream? {
        guard let o = r.object(value, at: "openpush", allowed: ["base_url", "ca_file"]) else {
            if required && value == nil { r.report("openpush", "required unless sandbox.embedded is true") }
            return nil
        }
        guard let url = r.string(o, "base_url", at: "openpush", required: true) else { return nil }
        if !(url.hasPrefix("https://") || url.hasPrefix("http://")) || URL(string: url)?.host == nil {
            r.report("openpush.base_url", "must be an absolute http:// or https:// URL")
        }
        let ca = r.string(o, "ca_file", at: "openpush")
        if let ca, !FileManager.default.isReadableFile(atPath: ca) { r.report("openpush.ca_file", "file \(ca) cannot be read") }
        return OpenPushUpstream(baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url, caFile: ca)
    }

    private static func decodeSandbox(_ value: JSONValue?, _ r: ConfigReader) -> Sandbox {
        guard let o = r.object(value, at: "sandbox", allowed: ["embedded", "seed", "rate_window_seconds", "listen"]) else { return Sandbox() }
        let seed = r.string(o, "seed", at: "sandbox")
        if let seed, !FileManager.default.isReadableFile(atPath: seed) { r.report("sandbox.seed", "file \(seed) cannot be read") }
        let window = r.positiveInt(o, "rate_window_seconds", at: "sandbox", default: Int(Sandbox().rateWindowSeconds))
        var sandbox = Sandbox(embedded: r.bool(o, "embedded", at: "sandbox", default: false), seedPath: seed, rateWindowSeconds: Int64(window))
        if let listen = r.listenAddress(o, "listen", at: "sandbox") { sandbox.listen = listen }
        return sandbox
    }

    /// The admin token of a local demo whose `admin.token_env` is not set: only when the
    /// embedded sandbox is the whole of OpenPush (no `openpush` object) and the admin listener
    /// is on loopback, as `config/demo-migration.json` runs.
    public static let demoAdminToken = "demo-admin-token"

    /// `admin`; with `demo` (the embedded sandbox is OpenPush) an unset `token_env` falls back
    /// to ``demoAdminToken`` when the listener is on loopback.
    private static func decodeAdmin(_ value: JSONValue?, demo: Bool, _ r: ConfigReader) -> Admin? {
        guard let o = r.object(value, at: "admin", allowed: ["token_env", "listen", "tls"]) else { return nil }
        let listen = r.listenAddress(o, "listen", at: "admin")
        let tls = decodeTLS(o["tls"], at: "admin.tls", r)
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(listen?.host ?? "127.0.0.1")
        guard let token = r.secretFromEnvironment(o, "token_env", at: "admin", fallback: demo && loopback ? demoAdminToken : nil) else { return nil }
        var admin = Admin(token: token, tls: tls)
        if let listen { admin.listen = listen }
        return admin
    }
}
