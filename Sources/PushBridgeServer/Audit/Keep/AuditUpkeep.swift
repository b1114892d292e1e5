/// What keeps a running proxy's audit from filling its disk: retention passes
/// (``AuditRetention``), the activity ledger's upkeep (``ActivityLedgerUpkeep``: entries past
/// their lifetime and over `limits.max_activities`, every minute) and the disk guard
/// (``AuditDiskGuard``), checked every minute so that crossing a limit is logged even when
/// nobody reads `/healthz`.
public final class AuditUpkeep: Sendable {
    /// The disk guard, read by `/healthz` and `/metrics`; nil for a PostgreSQL audit, whose
    /// disk is the server's.
    public let diskGuard: AuditDiskGuard?
    /// Retention of old rows.
    public let retention: AuditRetention
    /// The activity ledger's pruning and cap.
    public let activities: ActivityLedgerUpkeep
    private let diskChecks: PeriodicTask

    private init(diskGuard: AuditDiskGuard?, retention: AuditRetention, activities: ActivityLedgerUpkeep, diskChecks: PeriodicTask) {
        self.diskGuard = diskGuard
        self.retention = retention
        self.activities = activities
        self.diskChecks = diskChecks
    }

    /// Starts retention (when `limits.retentionDays` > 0) and the disk checks on `clock`, and
    /// hands the disk gauges and the pruned-row counter to `metrics`.
    public static func start(audit: AuditStore, limits: AuditLimits, clock: any DeliveryClock, metrics: Metrics, log: EventLog,
                             checkInterval: Duration = .seconds(60)) throws(AuditError) -> AuditUpkeep {
        let diskGuard = audit.pool == nil ? try AuditDiskGuard(path: audit.path, limits: limits, busyTimeout: audit.configuration.busyTimeout) : nil
        if let diskGuard { metrics.sampleAuditDisk(diskGuard) }
        let retention = try AuditRetention(store: audit, settings: AuditRetention.Settings(retentionDays: limits.retentionDays), clock: clock) { rows in
            metrics.recordAuditPruned(rows)
        }
        retention.start { error in
            log.error("audit retention pass failed; retrying at the next one", ["error": .string("\(error)")])
        }
        var ledgerSettings = ActivityLedgerUpkeep.Settings()
        ledgerSettings.maxActivities = limits.maxActivities
        let activities = try ActivityLedgerUpkeep(store: audit, settings: ledgerSettings, clock: clock) { pass in
            if pass.overCap > 0 {
                log.warning("activity ledger over limits.max_activities for a source app: its oldest entries were forgotten; their updates and ends are placed as unknown activities, and legacy off waits for their 12 hours",
                            ["forgotten": .int(Int64(pass.overCap)), "max_activities": .int(Int64(limits.maxActivities))])
            }
        }
        activities.start { error in
            log.error("activity ledger upkeep failed; retrying at the next pass", ["error": .string("\(error)")])
        }
        let checks = PeriodicTask(every: checkInterval, clock: clock) { diskGuard?.check(log: log) }
        return AuditUpkeep(diskGuard: diskGuard, retention: retention, activities: activities, diskChecks: checks)
    }

    /// Stops retention and the disk checks (before the audit closes).
    public func stop() async {
        await retention.stop()
        await activities.stop()
        await diskChecks.stop()
    }
}
