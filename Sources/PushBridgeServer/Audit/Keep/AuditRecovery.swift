/// `pending → unknown`, written once: a row whose request was begun but never completed,
/// because the process that held it stopped, is marked `unknown` (whether it reached OpenPush
/// cannot be told). An SQLite log recovers at start-up with ``recoverLog(_:instance:now:)``; the
/// PostgreSQL audit, a log since its migration 9, has its own (``AuditPostgresRecovery``), also
/// run by the survivor that takes a dead instance over.
enum AuditRecovery {
    /// Why a recovered request is `unknown`, after who stopped.
    static let unknownReason = "before this request was completed; whether it reached OpenPush is unknown"
}
