/// Where a proxy keeps the state that must be one for every instance: the pacer and the
/// scheduled starts, and (with PostgreSQL) the instance registry. With an SQLite audit
/// (the default) the pacer lives in the process and the starts in the scheduler's file,
/// exactly as a single instance always ran; with a PostgreSQL `audit_db` all of it lives in
/// that database.
public struct SharedState: Sendable {
    /// Paces sends per OpenPush app.
    public let pacer: any SendPacing
    /// The scheduled starts.
    public let starts: ScheduledStartStore
    /// This instance among the others; nil with SQLite.
    public let registry: InstanceRegistry?

    /// The state for `configuration` (`instance` names this process among the others).
    public static func make(_ configuration: ProxyConfiguration, instance: String, log: EventLog) throws -> SharedState {
        let uri = configuration.auditDatabasePath
        guard PostgresURI.isPostgres(uri) else {
            return SharedState(pacer: SendPacer(settings: configuration.delivery),
                               starts: try ScheduledStartStore(path: configuration.schedulerDatabasePath, instance: instance), registry: nil)
        }
        let registry = try InstanceRegistry(uri: uri, name: instance, settings: configuration.instances, log: log,
                                            takeoverStatements: AuditPostgresRecovery.takeoverStatements,
                                            takeoverWork: { try AuditPostgresRecovery.takeOver($0, instance: $1) })
        return SharedState(pacer: try PostgresSendPacer(uri: uri, settings: configuration.delivery, instance: instance, log: log),
                           starts: try ScheduledStartStore(postgres: uri, instance: instance), registry: registry)
    }
}
