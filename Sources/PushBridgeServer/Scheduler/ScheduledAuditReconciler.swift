import PushBridgeCore

/// Brings the audit in line with the scheduler's file when a scheduler starts.
///
/// The scheduler's file and the audit are two SQLite files, so no transaction spans both, and
/// a process that dies between the two commits leaves the audit behind the scheduler. The
/// windows in the code, and how each is closed here:
///
/// - The proxy commits the audit row (`scheduled`) and its `scheduled_sends` mirror, then
///   inserts the start into the scheduler's file. Dying (or failing to insert) in between
///   leaves a `scheduled` row with no start: nothing will ever be sent. Such a row, received
///   before this scheduler was made (so not a request in flight now), becomes `rejected`,
///   its mirror rows `failed`. Not when the scheduler's file holds no start at all: that
///   is far more likely a new file (`delivery.scheduler_db` changed) than a crash, so those
///   rows are left `scheduled` with a warning. The reverse (a start with no audit row)
///   cannot happen: the audit is written first.
/// - The scheduler commits `sent`/`failed` (``ScheduledStartStore/finish(_:sent:notificationId:status:error:now:)``),
///   then updates the mirror and completes the row. Dying in between leaves the row
///   `scheduled` (and the mirror `sending`) although the start was sent or failed. The row is
///   completed from the scheduler's record: outcome, final time, last upstream status, the
///   attempts as far as the mirror recorded them, and OpenPush's answer
///   `{"notification_id": …}` rebuilt from the notification id.
/// - `pushbridge scheduled cancel` commits `cancelled`, then (only with `--audit-db`) updates
///   the audit. Without it, or dying in between, the row stays `scheduled`; it becomes
///   `rejected` here (or `sent`/`failed` as its other starts went) once all are final.
///
/// A start found `sending` is not settled here: ``ScheduledStartStore`` made it `pending`
/// again when it opened (on PostgreSQL, ``InstanceRegistry/start()``), and the scheduler resends it (see there). Rows are never marked
/// `unknown` in these windows: the scheduler's row is always `scheduled`, never `pending`.
/// Nothing here reads or writes a request body; the audit never sees a device id.
struct ScheduledAuditReconciler {
    let store: ScheduledStartStore
    let audit: AuditStore
    let log: EventLog
    /// Rows received before this (Unix ms, audit clock) were written by an earlier process.
    let cutoff: Int64
    /// Now, Unix ms (the scheduler's clock).
    let now: @Sendable () -> Int64

    /// Settles every row the scheduler's file contradicts; logs one line per row and the
    /// count. Returns how many requests it settled.
    func run() async -> Int {
        let rows: [AuditScheduledRow]
        do {
            rows = try audit.reader.unsettledScheduled()
        } catch {
            log.error("could not read the audit to reconcile scheduled starts", ["error": .string("\(error)")])
            return 0
        }
        var settled = 0
        var emptyFile = false
        do {
            emptyFile = try await store.count() == 0
        } catch {
            log.error("could not read the scheduler's file to reconcile the audit", ["error": .string("\(error)")])
            return 0
        }
        let unstored = rows.filter { $0.outcome == AuditOutcome.scheduled.rawValue && $0.receivedAt < cutoff }.count
        if emptyFile, unstored > 0 {
            log.warning("the scheduler's file holds no start but the audit has scheduled rows; left as they are (is delivery.scheduler_db the file they were stored in?)",
                        ["file": .string(store.location), "count": .int(Int64(unstored))])
            return 0
        }
        for row in rows {
            do {
                if try await reconcile(row) { settled += 1 }
            } catch {
                log.error("could not reconcile a scheduled request with the audit", ["request_id": .string(row.requestId), "error": .string("\(error)")])
            }
        }
        if settled > 0 {
            log.info("audit reconciled with the scheduler's file", ["count": .int(Int64(settled))])
        }
        return settled
    }

    /// Settles one request; true when it changed the audit.
    private func reconcile(_ row: AuditScheduledRow) async throws -> Bool {
        let starts = try await store.starts(ofRequest: row.requestId)
        if starts.isEmpty {
            guard row.outcome == AuditOutcome.scheduled.rawValue, row.receivedAt < cutoff else { return false }
            return try await settleUnstored(row)
        }
        var changed = false
        for start in starts where start.state.isFinal {
            guard let mirror = row.sends.first(where: { $0.ordinal == start.ordinal }), mirror.state != start.state.rawValue else { continue }
            try await audit.run(.mirrorState(requestId: start.requestId, ordinal: start.ordinal, state: start.state, at: start.finishedAt ?? now(),
                                             status: start.upstreamStatus, error: start.error))
            changed = true
        }
        let completion = ScheduledStart.auditCompletion(of: starts, attempts: { ordinal in row.sends.first { $0.ordinal == ordinal }?.attempts ?? [] }, now: now())
        guard row.outcome == AuditOutcome.scheduled.rawValue, let completion else {
            if changed { log.info("scheduled start states copied into the audit", ["request_id": .string(row.requestId)]) }
            return changed
        }
        guard try await settle(row.requestId, completion) else { return changed }
        log.info("scheduled request completed in the audit from the scheduler's record", [
            "request_id": .string(row.requestId), "outcome": .string(completion.outcome.rawValue),
            "scheduled_ids": .string(starts.map(\.id).joined(separator: ",")), "notification_ids": .string(starts.compactMap(\.notificationId).joined(separator: ",")),
        ])
        return true
    }

    /// A `scheduled` row whose starts never reached the scheduler's file: nothing was sent.
    private func settleUnstored(_ row: AuditScheduledRow) async throws -> Bool {
        let message = "the scheduled start was never stored in the scheduler's file (the process stopped or the write failed); nothing was sent"
        for send in row.sends where send.state == "pending" || send.state == "sending" {
            try await audit.run(.mirrorState(requestId: row.requestId, ordinal: send.ordinal, state: .failed, at: now(), error: message))
        }
        guard try await settle(row.requestId, AuditCompletion(finishedAt: now(), outcome: .rejected, errorMessage: message)) else { return false }
        log.info("scheduled request completed in the audit from the scheduler's record", [
            "request_id": .string(row.requestId), "outcome": .string(AuditOutcome.rejected.rawValue), "scheduled_ids": .string(""),
        ])
        return true
    }

    /// Completes a row that still says `scheduled`; false when it no longer does (a
    /// completion written meanwhile is never overwritten).
    private func settle(_ requestId: String, _ completion: AuditCompletion) async throws -> Bool {
        do {
            try await audit.run(.completeScheduled(requestId, completion, onlyWhileScheduled: true, bodyLimit: audit.configuration.bodyLimit))
            return true
        } catch AuditError.unknownRequest {
            return false
        }
    }
}
