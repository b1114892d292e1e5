import Foundation
import PushBridgeCore

/// How instances sharing one PostgreSQL database watch each other (`instances` in the
/// configuration; unused with an SQLite audit).
public struct InstanceSettings: Sendable, Equatable {
    /// How often an instance records its heartbeat and looks for dead ones. Default 5000 ms.
    public var heartbeatMs: Int64 = 5_000
    /// An instance whose heartbeat is older than this is dead: a survivor marks its `pending`
    /// audit rows `unknown` and takes over its scheduled starts. Default 30000 ms, so a dead
    /// instance is settled within 35 s (under a minute).
    public var deadAfterMs: Int64 = 30_000

    /// The defaults.
    public init() {}

    /// The default instance name: the host name and the process id (`host-1234`).
    public static var defaultName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    static func decode(_ value: JSONValue?, _ r: ConfigReader) -> InstanceSettings {
        var s = InstanceSettings()
        guard let o = r.object(value, at: "instances", allowed: ["heartbeat_ms", "dead_after_ms"]) else { return s }
        s.heartbeatMs = Int64(r.positiveInt(o, "heartbeat_ms", at: "instances", default: Int(s.heartbeatMs)))
        s.deadAfterMs = Int64(r.positiveInt(o, "dead_after_ms", at: "instances", default: Int(s.deadAfterMs)))
        if s.deadAfterMs < 2 * s.heartbeatMs { r.report("instances.dead_after_ms", "must be at least twice instances.heartbeat_ms") }
        return s
    }
}
