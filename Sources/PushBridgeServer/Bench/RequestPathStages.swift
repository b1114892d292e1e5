import PushBridgeCore

/// The request path's first stages one at a time, for `alloc-count`'s split of a request's
/// allocations by stage (`bench/alloc`). Each stage runs on the output the stage before it
/// made for the same request, made once beforehand, so running a stage again repeats only its
/// own work. The audit's writes run through the runtime's own store, each time under a new
/// request id (the log's key is unique), the id's making counted with them. The stages after
/// translation that are not here (placement, the mode, upstream, the activity ledger, the exit)
/// run only inside ``ProxyService/handle(_:)``; `alloc-count` gives them as the whole
/// in-process request minus these stages.
public struct RequestPathStages: Sendable {
    /// One stage: its name as `alloc-count` prints it, and one run of it.
    public struct Stage: Sendable {
        /// Its key in `alloc-count`'s RESULT line, e.g. `translation`.
        public let key: String
        /// What the stage does, as `alloc-count` prints it.
        public let name: String
        /// Runs the stage once on the request; its result is dropped.
        public let run: @Sendable () async throws -> Void
    }

    /// The stages, in request order.
    public let stages: [Stage]

    /// The stages of `request` through `service`, or nil when the request is not admitted
    /// (an unknown route, a wrong credential): only an admitted request has every stage.
    public init?(request: HTTPRequest, service: ProxyService, now: Int64) {
        guard let route = InboundRoute.match(path: request.target) else { return nil }
        let call = Call(request, now: now)
        let snapshot = service.deps.snapshots.snapshot
        guard case .admitted(let inbound, let app) = Admission.admit(call, route: route, snapshot: snapshot, now: now) else { return nil }
        let translation = service.translate(inbound, app: app)
        let entry = inbound.entry(translation: translation, app: app)
        let audit = service.deps.audit
        let upstreamBody = #"{"notification_id":"msg_x"}"#
        let completion = AuditCompletion(finishedAt: now, outcome: .forwarded, upstreamStatus: 201, upstreamBody: upstreamBody, upstreamLatencyMs: 1,
                                          attempts: [UpstreamAttempt(startedAt: now, status: 201, latencyMs: 1)], responseStatus: 200,
                                          responseBody: upstreamBody)
        stages = [
            Stage(key: "admission", name: "route and admission (body parsed, app, credential)") {
                keep(Admission.admit(call, route: InboundRoute.match(path: request.target) ?? route, snapshot: service.deps.snapshots.snapshot, now: now))
            },
            Stage(key: "translation", name: "translation (dialect, checks, scrub, idempotency keys, findings logged)") {
                keep(service.translate(inbound, app: app))
            },
            Stage(key: "audit_entry", name: "audit entry (redacted body and translation)") {
                keep(inbound.entry(translation: translation, app: app))
            },
            Stage(key: "audit_writes", name: "audit writes (begin and finish of its row, each durable; no ledger change)") {
                var row = entry
                row.requestId = RequestID.make(nowMs: now)
                try await audit.begin(row)
                try await audit.finish(row.requestId, completion)
            },
        ]
    }
}

/// Keeps `value` alive until here, so the optimizer cannot drop the work that made it.
@inline(never)
private func keep<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
