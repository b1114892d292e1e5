import PushBridgeCore

/// The admin endpoints, on their own listener (loopback unless configured otherwise), behind
/// the admin token (``AdminCredential``: `Authorization: Bearer <token>`, or HTTP Basic with
/// the token as the password, which a browser prompts for), compared in constant time. Serves `GET /admin/report`
/// (`?format=text|md|json|csv|html` plus the report filters `since`, `until`, `app`,
/// `dialect`, `route`), its readiness section included, and `GET /admin/readiness` (the
/// verdicts alone, same filters and formats; JSON by default), and `GET /admin/` (the admin
/// page, ``AdminPage``: every app's stage, activities in flight and verdicts; with
/// `?where=APP&user=KEY`, which side that user's new starts go to, ``RolloutWhere``).
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
        let inFlight = try? await ledger?.readinessCounts(now: now)
        guard page else { return handle(request, inFlight: inFlight) }
        let filter: ReportFilter
        switch Self.filter(request.query) {
        case .success(let parsed): filter = parsed
        case .failure(let refusal): return refusal.response
        }
        do {
            let judged = try reader.readiness(filter, settings: readiness, inFlight: inFlight)
            let rollbacks = try? reader.rollbacks()
            let configured = snapshots?.snapshot.directory.apps
            let apps = configured.map { $0.map { AdminAppStatus($0, rollbacks: rollbacks) } }
                ?? readiness.apps.map { AdminAppStatus(name: $0.name, dialect: $0.dialect, stage: "—") }
            let asked = request.query["where"].map { Self.where(app: $0, user: request.query["user"] ?? "", among: configured, rollbacks: rollbacks) }
            let page = AdminPage.render(apps: apps, readiness: judged, inFlight: inFlight, now: now, where: asked,
                                        history: (try? reader.stageChanges(limit: Self.stageChangesShown)) ?? [])
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

    /// The page's "which side does a user get" answer for `app` (a name or source app id) and
    /// `user`, among the running apps, or why there is none.
    static func `where`(app: String, user: String, among apps: [AppConfiguration]?, rollbacks: [RolloutRollback]?) -> AdminPage.Where {
        var asked = AdminPage.Where(app: app, user: user)
        guard let apps else { asked.problem = "this listener has no running configuration to answer from"; return asked }
        guard let configured = apps.first(where: { $0.name == app }) ?? apps.first(where: { $0.sourceAppId == app }) else {
            asked.problem = "no running app is named \(app)"
            return asked
        }
        guard !user.isEmpty else { asked.problem = "give a user (the external id a start targets)"; return asked }
        let inRollout = configured.mode == .rollout || configured.routeModes.values.contains(.rollout)
        guard !inRollout || rollbacks != nil else { asked.problem = "whether \(configured.name)'s rollout was rolled back cannot be read from the audit now; try again"; return asked }
        asked.answer = RolloutWhere.answer(app: configured, user: user, rollback: rollbacks?.first { $0.app == configured.name })
        return asked
    }

    /// The admin page loads nothing: no script, no image, no style but its own inline one; its
    /// one form submits to the page itself.
    static let pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The 401: its challenges make a browser prompt for the user name (any) and the password
    /// (the admin token).
    static let unauthorized = HTTPResponse.json(401, .object(["error": .string("unauthorized: give the admin token as the password of HTTP Basic (any user name) or as Authorization: Bearer")]),
                                                headers: AdminCredential.challenges)

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
        AdminCredential.matches(request.header("authorization"), token: token)
    }
}

extension AdminService {
    /// The newest stage changes the admin page lists.
    static let stageChangesShown = 50
}
