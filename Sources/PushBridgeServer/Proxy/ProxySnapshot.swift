import PushBridgeCore
import Synchronization

/// What a configuration reload (SIGHUP) swaps without a restart: the apps (their modes,
/// shadows, credentials and keys) and the legacy providers' URLs. A request reads the
/// snapshot once when it starts and keeps it to the end, so a reload never changes a request
/// in flight.
public struct ProxySnapshot: Sendable {
    /// The configured apps.
    public var directory: AppDirectory
    /// The legacy providers' base URLs.
    public var legacy: ProxyConfiguration.LegacyEndpoints
    /// The configured secrets known in clear (the apps' OpenPush REST keys), swept by value
    /// from everything a request leaves in the audit, the log and its answer.
    public var configuredSecrets: [String]

    /// A snapshot.
    public init(directory: AppDirectory, legacy: ProxyConfiguration.LegacyEndpoints) {
        self.directory = directory
        self.legacy = legacy
        configuredSecrets = Array(Set(directory.apps.compactMap { $0.openPushKey?.value }))
    }

    /// The snapshot a configuration describes.
    public init(_ configuration: ProxyConfiguration) {
        self.init(directory: AppDirectory(apps: configuration.apps), legacy: configuration.legacy)
    }

    /// The app with this name.
    public func app(named name: String) -> AppConfiguration? { directory.apps.first { $0.name == name } }
}

/// Holds the current ``ProxySnapshot``; replaced whole, atomically.
public final class ProxySnapshotBox: Sendable {
    private let current: Mutex<(snapshot: ProxySnapshot, generation: UInt64)>

    /// A box holding `snapshot`.
    public init(_ snapshot: ProxySnapshot) { current = Mutex((snapshot, 0)) }

    /// The current snapshot.
    public var snapshot: ProxySnapshot { current.withLock { $0.snapshot } }

    /// How many times the snapshot was replaced.
    public var generation: UInt64 { current.withLock { $0.generation } }

    /// Replaces the snapshot; requests already running keep the one they read.
    public func replace(_ snapshot: ProxySnapshot) { current.withLock { $0 = (snapshot, $0.generation + 1) } }

    /// Replaces the snapshot only if it is still the `generation`th (no other replace came
    /// between a reload's reading and its check); true when it did.
    public func replace(_ snapshot: ProxySnapshot, ifGeneration generation: UInt64) -> Bool {
        current.withLock {
            guard $0.generation == generation else { return false }
            $0 = (snapshot, generation + 1)
            return true
        }
    }
}
