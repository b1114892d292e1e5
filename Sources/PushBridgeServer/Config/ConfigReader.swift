import PushBridgeCore

/// Walks a parsed configuration, collecting every problem with its path instead of stopping
/// at the first. Reports name keys, types and environment variables, never values.
final class ConfigReader {
    private(set) var problems: [ConfigurationError.Problem] = []
    let environment: [String: String]
    /// The embedded sandbox's REST key per OpenPush app id, from its seed, when the sandbox is
    /// the upstream: an app's unset `rest_key_env` falls back to it (the demo needs no key).
    var sandboxRestKeys: [String: String] = [:]

    init(environment: [String: String]) { self.environment = environment }

    func report(_ path: String, _ message: String) {
        problems.append(.init(path: path, message: message))
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The object at `path`, with unknown and duplicate keys reported; `nil` if absent or not an object.
    func object(_ value: JSONValue?, at path: String, allowed: [String]) -> JSONObject? {
        guard let value else { return nil }
        guard let object = value.objectValue else {
            report(path, "expected an object, found \(value.typeName)")
            return nil
        }
        var seen = Set<String>()
        for key in object.keys {
            if !allowed.contains(key) { report(Self.join(path, key), "unknown key (allowed: \(allowed.joined(separator: ", ")))") }
            if !seen.insert(key).inserted { report(Self.join(path, key), "duplicate key") }
        }
        return object
    }

    func string(_ object: JSONObject?, _ key: String, at path: String, required: Bool = false) -> String? {
        let p = Self.join(path, key)
        guard let value = object?[key] else {
            if required { report(p, "required") }
            return nil
        }
        guard let s = value.stringValue else { report(p, "expected a string, found \(value.typeName)"); return nil }
        if s.isEmpty { report(p, "must not be empty"); return nil }
        return s
    }

    func positiveInt(_ object: JSONObject?, _ key: String, at path: String, default fallback: Int) -> Int {
        let p = Self.join(path, key)
        guard let value = object?[key] else { return fallback }
        guard let n = value.numberValue?.int64Value else { report(p, "expected an integer, found \(value.typeName)"); return fallback }
        guard n > 0, n <= Int64(Int32.max) else { report(p, "must be between 1 and \(Int32.max)"); return fallback }
        return Int(n)
    }

    func nonNegativeInt(_ object: JSONObject?, _ key: String, at path: String, default fallback: Int) -> Int {
        let p = Self.join(path, key)
        guard let value = object?[key] else { return fallback }
        guard let n = value.numberValue?.int64Value else { report(p, "expected an integer, found \(value.typeName)"); return fallback }
        guard n >= 0, n <= Int64(Int32.max) else { report(p, "must be between 0 and \(Int32.max)"); return fallback }
        return Int(n)
    }

    func bool(_ object: JSONObject?, _ key: String, at path: String, default fallback: Bool) -> Bool {
        guard let value = object?[key] else { return fallback }
        guard let b = value.boolValue else { report(Self.join(path, key), "expected a boolean, found \(value.typeName)"); return fallback }
        return b
    }

    func array(_ object: JSONObject?, _ key: String, at path: String) -> [JSONValue]? {
        guard let value = object?[key] else { return nil }
        guard let a = value.arrayValue else { report(Self.join(path, key), "expected an array, found \(value.typeName)"); return nil }
        return a
    }

    /// The value of the environment variable named at `object[key]`; `fallback` when that
    /// variable is unset and a fallback is given.
    func secretFromEnvironment(_ object: JSONObject?, _ key: String, at path: String, required: Bool = true, fallback: String? = nil) -> Secret? {
        guard let name = string(object, key, at: path, required: required) else { return nil }
        // Not echoed when malformed: a key pasted here by mistake must not reach a log.
        guard Self.isEnvironmentName(name) else {
            report(Self.join(path, key), "must name an environment variable (letters, digits and _, not starting with a digit)")
            return nil
        }
        guard let value = environment[name], !value.isEmpty else {
            if let fallback { return Secret(fallback) }
            report(Self.join(path, key), "environment variable \(name) is not set")
            return nil
        }
        return Secret(value)
    }

    static func isEnvironmentName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 128, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// A `host:port` string (`[v6]:port` for IPv6).
    func listenAddress(_ object: JSONObject?, _ key: String, at path: String) -> ProxyConfiguration.ListenAddress? {
        guard let text = string(object, key, at: path) else { return nil }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            report(Self.join(path, key), "expected host:port with a port from 0 to 65535")
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { report(Self.join(path, key), "missing host"); return nil }
        return .init(host: host, port: port)
    }
}
