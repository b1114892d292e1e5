import Foundation

/// One batch of reservations: one transaction, whatever the number of reservations and apps.
extension PostgresSendPacer {
    /// Carries `asks` in one transaction on `db`, in two round trips whatever their number,
    /// of statements prepared once per connection (the server plans them once, not per
    /// batch), the transaction a pipeline's implicit one held open between them
    /// (``PostgresConnection/openPipeline(_:prepared:)``: no `BEGIN`, no `COMMIT`): their apps'
    /// rows locked in app order and read, the commit made asynchronous by the same statement
    /// (``SQL/readWindows``, or ``SQL/lockWindows`` when a row is missing: ``lock(_:on:)``); then, ``PacerWindow``'s rule applied to each ask in order, every
    /// changed window and the grants held by `instance` written back (``SQL/store``) with the
    /// sync point that commits. One answer per ask, in order. Throws (nothing written) when
    /// any statement fails.
    static func reserve(_ asks: [PacerBatchQueue.Ask], settings: DeliverySettings, instance: String,
                        on db: PostgresConnection) throws -> [SendPacer.Reservation] {
        var windows = try lock(Array(Set(asks.map(\.app))), on: db)
        var granted: [String: (grants: [Int64], latest: Int64)] = [:]
        var answers: [SendPacer.Reservation] = []
        answers.reserveCapacity(asks.count)
        for ask in asks {
            let answer = ask.spare
                ? windows[ask.app, default: PacerWindow()].reserveSpare(count: ask.count, now: ask.now, settings: settings)
                : windows[ask.app, default: PacerWindow()].reserve(count: ask.count, now: ask.now, settings: settings)
            if case .granted(let grants) = answer {
                let held = granted[ask.app] ?? ([], ask.now)
                granted[ask.app] = (held.grants + grants, max(held.latest, ask.now))
            }
            answers.append(answer)
        }
        guard !granted.isEmpty else {
            for case .failed(let error) in try db.syncPipeline([], prepared: true) { throw error }
            return answers
        }
        let apps = granted.keys.sorted(), span = settings.windowMs + settings.marginMs
        let store = storeParameters(apps: apps, instance: instance, expired: apps.map { (granted[$0]?.latest ?? 0) - span },
                                    slots: apps.map { windows[$0]?.slots.all ?? [] }, spare: apps.map { windows[$0]?.spare.all ?? [] },
                                    grants: apps.map { granted[$0]?.grants ?? [] })
        for case .failed(let error) in try db.closePipeline([(SQL.store, store)], prepared: true) { throw error }
        return answers
    }

    /// ``SQL/store``'s parameters for `apps` (in app order), each app's windows' `slots` and
    /// `spare` sends, the `grants` `instance` now holds, and the time at or before which its
    /// older holds are out of the window (`expired`). Every grant time goes in a binary
    /// `BIGINT[]` (``PostgresBinaryArray/bigints(_:)``), all the apps' concatenated in app
    /// order with each app's end in a second one, so the server copies them instead of
    /// parsing a text of every send time of the window (hundreds at a one-second window) for
    /// each batch; the apps go as text.
    static func storeParameters(apps: [String], instance: String, expired: [Int64],
                                slots: [[Int64]], spare: [[Int64]], grants: [[Int64]]) -> [PostgresParameter] {
        let flat = { (arrays: [[Int64]]) -> [PostgresParameter] in
            var ends: [Int64] = [], end: Int64 = 0
            ends.reserveCapacity(arrays.count)
            for array in arrays {
                end += Int64(array.count)
                ends.append(end)
            }
            return [.binary(PostgresBinaryArray.bigints(arrays.joined())), .binary(PostgresBinaryArray.bigints(ends))]
        }
        return [.text(textArray(apps)), .binary(PostgresBinaryArray.bigints(expired)), .text(instance)]
            + flat(slots) + flat(spare) + flat(grants)
    }

    /// Opens the batch's transaction and returns the windows of `apps`, their rows locked for
    /// it (created empty when missing): one round trip, the transaction left open. The rows
    /// are locked without being written (``SQL/readWindows``); when one is missing (an app's
    /// first batch in this database), that transaction ends (it wrote nothing) and the batch
    /// locks every app's row with the upsert that creates it (``SQL/lockWindows``) in a new
    /// one: one more round trip, once per app.
    private static func lock(_ apps: [String], on db: PostgresConnection) throws -> [String: PacerWindow] {
        let existing = try windows(db.openPipeline([(SQL.readWindows, [textArray(apps)])], prepared: true), sql: SQL.readWindows)
        guard existing.count < apps.count else { return existing }
        for case .failed(let error) in try db.syncPipeline([], prepared: true) { throw error }
        return try windows(db.openPipeline([(SQL.lockWindows, [textArray(apps)])], prepared: true), sql: SQL.lockWindows)
    }

    /// The windows read by `sql` (``SQL/readWindows`` or ``SQL/lockWindows``), by app; throws
    /// when a statement failed or was skipped (the transaction is then ended).
    private static func windows(_ results: [PostgresConnection.PipelineResult], sql: String) throws -> [String: PacerWindow] {
        var windows: [String: PacerWindow] = [:]
        for result in results {
            switch result {
            case .failed(let error): throw error
            case .skipped: throw PostgresError(operation: "execute", message: "a statement of the pacer's batch was skipped", sql: sql)
            case .done: break
            }
        }
        guard case .done(_, let rows)? = results.last else { return windows }
        for case let row? in rows {
            // "blocked_until slots spare_slots app": the app, which may hold spaces, last.
            let parts = row.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4 else { continue }
            windows[String(parts[3])] = PacerWindow(slots: parseArray(String(parts[1])), spare: parseArray(String(parts[2])),
                                                    blockedUntil: Int64(parts[0]) ?? 0)
        }
        return windows
    }

    /// A `TEXT[]` in PostgreSQL's text form, every element quoted (`{"a","b\"c"}`).
    static func textArray(_ values: [String]) -> String {
        "{" + values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }

    /// A `BIGINT[]` in PostgreSQL's text form (`{1,2,3}`).
    static func parseArray(_ text: String) -> [Int64] {
        text.trimmingCharacters(in: ["{", "}"]).split(separator: ",").compactMap { Int64($0) }
    }
}
