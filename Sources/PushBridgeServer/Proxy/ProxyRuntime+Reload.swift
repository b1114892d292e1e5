import Dispatch
import Foundation
import Glibc
import PushBridgeCore
import Synchronization

extension ProxyRuntime {
    /// Re-reads the configuration file and applies its apps, modes, shadows and legacy URLs
    /// (see ``reload(_:)``). An invalid file changes nothing and is logged with every problem.
    /// True when the file was valid (one that removes a legacy provider is then still checked
    /// against the activity ledger before it applies, and may be refused).
    @discardableResult
    public func reload(fromFileAt path: String, environment: [String: String]) -> Bool {
        do {
            reload(try ProxyConfiguration.load(fileAt: path, environment: environment))
            return true
        } catch {
            logReloadFailure(path, error.problems.map(\.description))
            return false
        }
    }

    /// Reloads `configuration` (its legacy doubles resolved; read against the snapshot
    /// `generation`), checking first that it strands no activity: a configuration without a
    /// `legacy.<dialect>` the running one has, while the activity ledger still holds
    /// activities of an app of that dialect on the legacy side, is refused (logged with the
    /// apps, the count and until when; the running configuration stays) unless the file says
    /// `"allow_legacy_removal": true` (then it applies, and the log says what it strands).
    /// True when the configuration was applied.
    func reloadGuarded(_ configuration: ProxyConfiguration, generation: UInt64) async -> Bool {
        let dialects = legacyRemovals(configuration)
        guard !dialects.isEmpty else { return apply(configuration, generation: generation) }
        let counts: [ActivityCount]
        do {
            counts = try await audit.activities.inFlightCounts(now: AuditClock.nowMilliseconds())
        } catch {
            log.error("configuration reload refused; the running configuration stays", [
                "problems": .string("it removes \(dialects.map { "legacy.\($0.rawValue)" }.sorted().joined(separator: ", ")) and the activity ledger cannot be read to know whether activities in flight are still held there (\(error)); "
                                    + "retry, or set \"\(LegacyRemovalGuard.configKey)\": true to remove it anyway"),
            ])
            return false
        }
        let stranded = LegacyRemovalGuard.stranded(configuration, dialects: dialects, counts: counts)
        let refusals = LegacyRemovalGuard.refusals(stranded)
        if !refusals.isEmpty, !configuration.allowLegacyRemoval {
            log.error("configuration reload refused; the running configuration stays", ["problems": .string(refusals.joined(separator: "; "))])
            return false
        }
        for refusal in refusals {
            log.warning("LEGACY PROVIDER REMOVED WITH ACTIVITIES IN FLIGHT (allowed by \(LegacyRemovalGuard.configKey)): \(refusal)", [:])
        }
        if refusals.isEmpty { for line in LegacyRemovalGuard.clear(dialects) { log.info(line, [:]) } }
        return apply(configuration, generation: generation)
    }

    /// The dialects whose `legacy.<dialect>` the running configuration has and `configuration`
    /// (resolved) has not, among its apps' dialects: what the legacy-off guard looks at.
    func legacyRemovals(_ configuration: ProxyConfiguration) -> Set<DialectName> {
        LegacyRemovalGuard.unguarded(configuration, removed: LegacyRemovalGuard.removed(from: snapshots.snapshot.legacy, to: configuration.legacy))
    }

    /// Logs ``OpenPushReachWarning`` for every app `configuration` moves to `openpush` from
    /// another stage in `before`, read from the audit off the caller's thread.
    func warnAboutReach(moving before: ProxySnapshot, to configuration: ProxyConfiguration) {
        let moved = Set(OpenPushReachWarning.openPushApps(configuration).filter { app in
            before.app(named: app.name).map { Self.startSide($0) != MigrationMode.openpush.rawValue } ?? false
        }.map(\.name))
        guard !moved.isEmpty else { return }
        let reader = audit.reader, log = log
        DispatchQueue.global().async {
            for warning in OpenPushReachWarning.warnings(configuration, only: moved, reader: reader) {
                log.warning("OPENPUSH REACH BELOW readiness.min_reach: \(warning)", [:])
            }
        }
    }

    /// Reloads from `path` on every SIGHUP until the returned object is released.
    public func reloadOnHangup(configPath path: String) -> HangupReloader {
        HangupReloader { [self] in reload(fromFileAt: path, environment: ProcessInfo.processInfo.environment) }
    }
}

/// Calls its action on every SIGHUP, on its own queue, until released.
public final class HangupReloader: Sendable {
    private let source: Mutex<(any DispatchSourceSignal)?>

    /// Installs the SIGHUP handler.
    public init(_ action: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "pushbridge.sighup"))
        s.setEventHandler(handler: action)
        s.resume()
        source = Mutex(s)
    }

    deinit {
        source.withLock { $0?.cancel() }
    }
}
