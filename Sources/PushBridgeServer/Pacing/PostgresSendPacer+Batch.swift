import Foundation

/// One batch of reservations: one transaction, whatever the number of reservations and apps.
extension PostgresSendPacer {
    /// Carries `asks` in one transaction on `db`, in two round trips whatever their number,
    /// of statements prepared once per connection (the server plans them once, not per
    /// batch), the transaction a pipeline's implicit one held open between them
    /// (``PostgresConnection/openPipeline(_:prepared:)``: no `BEGIN`, no `COMMIT`): their apps'
    /// rows locked in app order and read, the commit made asynchronous by the same statement
    /// (``SQL/lockWindows``); then, ``PacerWindow``'s rule applied to each ask in order, every
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
            for case .failed(let error) in try db.closePipeline([], prepared: true) { throw error }
            return answers
        }
        let apps = granted.keys.sorted(), span = settings.windowMs + settings.marginMs
        let store: [String?] = [
            textArray(apps),
            textArray(apps.map { arrayText(windows[$0]?.slots.all ?? []) }),
            textArray(apps.map { arrayText(granted[$0]?.grants ?? []) }),
            arrayText(apps.map { (granted[$0]?.latest ?? 0) - span }),
            instance,
            textArray(apps.map { arrayText(windows[$0]?.spare.all ?? []) }),
        ]
        for case .failed(let error) in try db.closePipeline([(SQL.store, store)], prepared: true) { throw error }
        return answers
    }

    /// Opens the batch's transaction and returns the windows of `apps`, their rows locked for
    /// it (created empty when missing): one round trip, the transaction left open.
    private static func lock(_ apps: [String], on db: PostgresConnection) throws -> [String: PacerWindow] {
        let results = try db.openPipeline([(SQL.lockWindows, [textArray(apps)])], prepared: true)
        var windows: [String: PacerWindow] = [:]
        for result in results {
            switch result {
            case .failed(let error): throw error
            case .skipped: throw PostgresError(operation: "execute", message: "a statement of the pacer's batch was skipped", sql: SQL.lockWindows)
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

    /// A `BIGINT[]` in PostgreSQL's text form.
    static func arrayText(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
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
