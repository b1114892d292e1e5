import PushBridgeCore

/// The admin endpoints, on their own listener (loopback unless configured otherwise), behind
/// `Authorization: Bearer <token>` compared in constant time. Serves `GET /admin/report`
/// (`?format=text|md|json|csv|html` plus the report filters `since`, `until`, `app`,
/// `dialect`, `route`), its readiness section included, and `GET /admin/readiness` (the
/// verdicts alone, same filters and formats; JSON by default), and `GET /admin/` (the admin
/// page, ``AdminPage``: every app's stage, activities in flight and verdicts).
public struct AdminService: Sendable {
    /// The admin token.
    public let token: Secret
    /// The audit read connection.
    public let reader: AuditReader
    /// The thresholds and apps readiness is judged with.
    public let readiness: ReadinessSettings
    /// The embedded sandbox, whose read-only views (`GET /_sandbox/sends`, `/_sandbox/devices`,
    /// `/_sandbox/activities`) the admin listener also serves.
    public let sandbox: SandboxService?
    /// The running configuration's apps (replaced on reload), for the admin page; nil shows
    /// the apps of ``readiness``.
    public let snapshots: ProxySnapshotBox?
    /// The activity ledger, for `GET /admin/activities`, the page's activities in flight and
    /// the readiness verdict on the legacy provider; nil: not known.
    public let ledger: ActivityLedger?

    /// A service.
    public init(token: Secret, reader: AuditReader, readiness: ReadinessSettings = ReadinessSettings(), sandbox: SandboxService? = nil,
                ledger: ActivityLedger? = nil, snapshots: ProxySnapshotBox? = nil) {
        self.token = token
        self.reader = reader
        self.readiness = readiness
        self.sandbox = sandbox
        self.ledger = ledger
        self.snapshots = snapshots
    }

    /// The handler to give an ``HTTPServer``.
    public var handler: HTTPHandler { { request in await self.respond(request) } }

    /// Answers one admin request, the admin page included: 401 without the right token, then
    /// as ``handle(_:)``.
    public func respond(_ request: HTTPRequest) async -> HTTPResponse {
        let page = request.path == "/admin/" || request.path == "/admin"
        guard page || request.path == "/admin/activities" || request.path == "/admin/readiness" || request.path == "/admin/report" else { return handle(request) }
        guard authorized(request) else { return Self.unauthorized }
        guard request.method == "GET" else { return .json(405, .object(["error": .string("method not allowed")]), headers: [("Allow", "GET")]) }
        let now = AuditClock.nowMilliseconds()
        if request.path == "/admin/activities" { return await activities(request.query, now: now) }
        let inFlight = try? await ledger?.inFlightCounts(now: now)
        guard page else { return handle(request, inFlight: inFlight) }
        let filter: ReportFilter
        switch Self.filter(request.query) {
        case .success(let parsed): filter = parsed
        case .failure(let refusal): return refusal.response
        }
        do {
            let judged = try reader.readiness(filter, settings: readiness, inFlight: inFlight)
            let rollbacks = try? reader.rollbacks()
            let apps = snapshots.map { $0.snapshot.directory.apps.map { AdminAppStatus($0, rollbacks: rollbacks) } }
                ?? readiness.apps.map { AdminAppStatus(name: $0.name, dialect: $0.dialect, stage: "—") }
            let page = AdminPage.render(apps: apps, readiness: judged, inFlight: inFlight, now: now, history: (try? reader.stageChanges(limit: Self.stageChangesShown)) ?? [])
            return HTTPResponse(status: 200, headers: [("Content-Type", ReportFormat.html.contentType), ("Cache-Control", "no-store"),
                                                       ("Content-Security-Policy", Self.pagePolicy)], body: Array(page.utf8))
        } catch {
            return .json(500, .object(["error": .string("\(error)")]))
        }
    }

    /// `GET /admin/activities`: the activities in flight as JSON (``ActivityListing``), newest
    /// first, at most 10,000; `?app=` and `?provider=openpush|legacy` as `pushbridge activities`.
    private func activities(_ query: [String: String], now: Int64) async -> HTTPResponse {
        var holder: ActivityHolder?
        if let provider = query["provider"] {
            guard provider == "openpush" || provider == "legacy" else { return .json(400, .object(["error": .string("provider is openpush or legacy")])) }
            holder = ActivityHolder(rawValue: provider)
        }
        guard let ledger else { return .json(503, .object(["error": .string("this listener has no activity ledger to read")])) }
        do {
            let records = try await ledger.inFlight(app: query["app"], holder: holder, now: now, limit: 10_000)
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                                body: Array(ActivityListing.render(records, as: .json).utf8))
        } catch {
            return .json(500, .object(["error": .string("\(error)")]))
        }
    }

    /// The admin page loads nothing: no script, no image, no style but its own inline one.
    static let pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private static let unauthorized = HTTPResponse.json(401, .object(["error": .string("unauthorized")]), headers: [("WWW-Authenticate", "Bearer")])

    /// A 400 for a bad filter parameter.
    struct Refusal: Error {
        /// The answer.
        var response: HTTPResponse
    }

    /// The report filters `since until app dialect route` of a query, or the 400 naming the bad one.
    static func filter(_ query: [String: String]) -> Result<ReportFilter, Refusal> {
        var filter = ReportFilter(app: query["app"], dialect: query["dialect"], route: query["route"])
        for name in ["since", "until"] {
            guard let text = query[name] else { continue }
            guard let time = ReportFilter.parseTime(text) else {
                return .failure(Refusal(response: .json(400, .object(["error": .string("\(name) takes \(TimeArgument.accepted)")]))))
            }
            if name == "since" { filter.since = time } else { filter.until = time }
        }
        return .success(filter)
    }

    /// Answers one admin request: 401 without the right token, 404 for other paths, 405 for
    /// other methods, 400 for a bad filter.
    public func handle(_ request: HTTPRequest, inFlight: [ActivityCount]? = nil) -> HTTPResponse {
        guard authorized(request) else { return Self.unauthorized }
        if let sandbox, request.method == "GET", SandboxRoute.isReadOnlyView(request.path) { return sandbox.handleSync(request) }
        guard request.path == "/admin/report" || request.path == "/admin/readiness" else { return .json(404, .object(["error": .string("not found")])) }
        guard request.method == "GET" else { return .json(405, .object(["error": .string("method not allowed")]), headers: [("Allow", "GET")]) }
        let query = request.query
        guard let format = ReportFormat(rawValue: query["format"] ?? "json") else {
            return .json(400, .object(["error": .string("format is one of text, md, json, csv, html")]))
        }
        let filter: ReportFilter
        switch Self.filter(query) {
        case .success(let parsed): filter = parsed
        case .failure(let refusal): return refusal.response
        }
        do {
            let text: String
            if request.path == "/admin/readiness" {
                text = ReadinessRendering.render(try reader.readiness(filter, settings: readiness, inFlight: inFlight), as: format)
            } else {
                text = ReportRenderer.render(try reader.report(filter, readiness: readiness, inFlight: inFlight), as: format)
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", format.contentType), ("Cache-Control", "no-store")], body: Array(text.utf8))
        } catch {
            return .json(500, .object(["error": .string("\(error)")]))
        }
    }

    private func authorized(_ request: HTTPRequest) -> Bool {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else { return false }
        return Fingerprint.constantTimeEquals(String(header.dropFirst(7)), token.value)
    }
}

extension AdminService {
    /// The newest stage changes the admin page lists.
    static let stageChangesShown = 50
}
