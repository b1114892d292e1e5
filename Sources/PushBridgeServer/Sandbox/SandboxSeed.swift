import Foundation
import PushBridgeCore

/// A seed file's content: apps (with REST keys or the names of environment variables holding
/// them), their devices, segments, aliases, tokens and optionally open activities. The format
/// is documented in `docs/sandbox.md`; `fixtures/sandbox/seed.json` is an example.
public struct SandboxSeed: Sendable {
    /// A seeded app with its devices.
    public struct App: Sendable {
        /// The app.
        public var app: SandboxApp
        /// Its devices, in file order.
        public var devices: [SandboxDevice]
        /// Open activities to create.
        public var activities: [SandboxActivity]
    }

    /// The apps.
    public var apps: [App]
    /// The clock's start time (Unix seconds), when the seed fixes one.
    public var now: Int64?
    /// The `simulate_device_registration` switch, when the seed sets it.
    public var simulateDeviceRegistration: Bool?

    /// Reads a seed file.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SandboxSeed {
        guard let data = FileManager.default.contents(atPath: path) else { throw SandboxSeedError("cannot read seed file \(path)") }
        do {
            return try parse(JSONParser.parse([UInt8](data)), environment: environment)
        } catch let e as JSONParseError {
            throw SandboxSeedError("seed file \(path): \(e.description)")
        }
    }

    /// Reads a seed document.
    public static func parse(_ value: JSONValue, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SandboxSeed {
        guard let root = value.objectValue else { throw SandboxSeedError("seed: must be a JSON object") }
        var seed = SandboxSeed(apps: [], now: root["now"]?.numberValue?.int64Value,
                               simulateDeviceRegistration: root["simulate_device_registration"]?.boolValue)
        for (i, a) in (root["apps"]?.arrayValue ?? []).enumerated() {
            seed.apps.append(try parseApp(a, at: "apps[\(i)]", environment: environment))
        }
        return seed
    }

    private static func parseApp(_ value: JSONValue, at path: String, environment: [String: String]) throws -> App {
        guard let o = value.objectValue else { throw SandboxSeedError("\(path): must be an object") }
        let id = try string(o, "id", at: path), bundle = try string(o, "bundle_id", at: path)
        let key: String
        if let k = o["rest_key"]?.stringValue { key = k }
        else if let env = o["rest_key_env"]?.stringValue {
            guard let k = environment[env], !k.isEmpty else { throw SandboxSeedError("\(path).rest_key_env: environment variable \(env) is not set") }
            key = k
        } else { throw SandboxSeedError("\(path): rest_key or rest_key_env is required") }
        var out = App(app: SandboxApp(id: id, restKey: key, bundleId: bundle), devices: [], activities: [])
        for (j, dv) in (o["devices"]?.arrayValue ?? []).enumerated() {
            let dp = "\(path).devices[\(j)]"
            guard let d = dv.objectValue else { throw SandboxSeedError("\(dp): must be an object") }
            let sub = try string(d, "subscription_id", at: dp), token = try hexToken(d, "push_token", at: dp)
            var device = SandboxDevice(appId: id, subscriptionId: sub, pushToken: token, openPushId: d["openpush_id"]?.stringValue)
            for m in d["aliases"]?.objectValue?.members ?? [] { device.aliases[m.key] = m.value.stringValue }
            device.segments = (d["segments"]?.arrayValue ?? []).compactMap(\.stringValue)
            for m in d["push_to_start_tokens"]?.objectValue?.members ?? [] {
                device.pushToStartTokens[m.key] = try hexToken(d["push_to_start_tokens"]?.objectValue ?? [:], m.key, at: "\(dp).push_to_start_tokens")
            }
            out.devices.append(device)
            for (k, av) in (d["activities"]?.arrayValue ?? []).enumerated() {
                let ap = "\(dp).activities[\(k)]"
                guard let a = av.objectValue else { throw SandboxSeedError("\(ap): must be an object") }
                out.activities.append(SandboxActivity(
                    appId: id, subscriptionId: sub, activityId: try string(a, "activity_id", at: ap),
                    activityType: try string(a, "activity_type", at: ap), updateToken: try hexToken(a, "update_token", at: ap),
                    startedAt: a["started_at"]?.numberValue?.int64Value ?? Int64.min, staleAt: a["stale_at"]?.numberValue?.int64Value ?? Int64.min,
                    endedAt: a["ended_at"]?.numberValue?.int64Value))
            }
        }
        return out
    }

    private static func string(_ o: JSONObject, _ key: String, at path: String) throws -> String {
        guard let s = o[key]?.stringValue, !OpenPushRules.isBlank(s) else { throw SandboxSeedError("\(path).\(key): is required and must be a non-blank string") }
        return s
    }

    private static func hexToken(_ o: JSONObject, _ key: String, at path: String) throws -> String {
        let s = try string(o, key, at: path)
        guard OpenPushRules.isValidToken(s) else { throw SandboxSeedError("\(path).\(key): must be a hex APNs token of even length, 64–512 characters") }
        return s
    }

    /// Writes the seed into a store; activities without `started_at` start at `now`.
    func apply(to store: any SandboxStore, now: Int64) throws {
        for a in apps {
            try store.putApp(a.app)
            for var d in a.devices {
                d.sequence = store.device(app: d.appId, subscriptionId: d.subscriptionId)?.sequence ?? store.nextSequence()
                try store.putDevice(d)
            }
            for var act in a.activities {
                if act.startedAt == Int64.min { act.startedAt = now }
                let windowEnd = act.startedAt + OpenPushLimits.activeWindowSeconds
                act.staleAt = act.staleAt == Int64.min ? windowEnd : min(act.staleAt, windowEnd)
                try store.putActivity(act)
            }
        }
    }
}

/// A seed file that cannot be used, with the path of the offending entry.
public struct SandboxSeedError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and where.
    public let description: String

    /// An error.
    public init(_ description: String) { self.description = description }
}
