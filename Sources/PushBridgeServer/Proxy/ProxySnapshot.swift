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
    private let current: Mutex<ProxySnapshot>

    /// A box holding `snapshot`.
    public init(_ snapshot: ProxySnapshot) { current = Mutex(snapshot) }

    /// The current snapshot.
    public var snapshot: ProxySnapshot { current.withLock { $0 } }

    /// Replaces the snapshot; requests already running keep the one they read.
    public func replace(_ snapshot: ProxySnapshot) { current.withLock { $0 = snapshot } }
}
