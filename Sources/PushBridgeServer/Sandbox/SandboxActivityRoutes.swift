import PushBridgeCore

extension SandboxEngine {
    /// `POST /v1/apps/{app}/live-activities`: registers (or refreshes) an update token.
    /// Body: `subscription_id` or `device_token`, `activity_id`, `activity_type`, `token`, optional `stale_at`.
    func registerActivity(_ request: HTTPRequest, appId: String) throws -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        var r = FieldReader(body)
        let activityId = r.string("activity_id"), activityType = r.string("activity_type")
        let token = r.string("token"), staleAt = r.integer("stale_at")
        var errors = r.errors.map { "\($0.field): \($0.rule)" }
        let typed = Set(r.errors.map(\.field))
        if !typed.contains("activity_id") {
            if OpenPushRules.isBlank(activityId) { errors.append("activity_id: is required and must be non-blank") }
            else if activityId!.contains("/") { errors.append("activity_id: must not contain /") }
        }
        if !typed.contains("activity_type"), OpenPushRules.isBlank(activityType) { errors.append("activity_type: is required and must be non-blank") }
        if !typed.contains("token") { Self.checkToken(token, into: &errors) }
        guard errors.isEmpty, let activityId, let activityType, let token else { return SandboxResponses.errors(400, errors) }
        guard let device = lookupDevice(body, appId: appId) else { return SandboxResponses.error(404, SandboxResponses.deviceNotRegistered) }
        let (row, created) = try register(app: appId, subscriptionId: device.subscriptionId, activityId: activityId,
                                          activityType: activityType, token: token, staleAt: staleAt)
        return .json(created ? 201 : 200, .object([
            "activity_id": .string(row.activityId), "subscription_id": .string(row.subscriptionId),
            "started_at": .int(row.startedAt), "stale_at": .int(row.staleAt),
        ]))
    }

    /// `POST /v1/apps/{app}/live-activities/{id}/end`: stamps the calling device's row as ended.
    func endActivity(_ request: HTTPRequest, appId: String, activityId: String) throws -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        guard let device = lookupDevice(body, appId: appId) else { return SandboxResponses.error(404, SandboxResponses.deviceNotRegistered) }
        guard var row = store.activities(app: appId, subscriptionId: device.subscriptionId).first(where: { $0.activityId == activityId }) else {
            return SandboxResponses.error(404, "activity_id: no live activity with that id is registered for this device")
        }
        if row.endedAt == nil {
            row.endedAt = clock.now
            try store.putActivity(row)
        }
        return .json(200, .object(["activity_id": .string(activityId), "ended_at": .int(row.endedAt ?? clock.now)]))
    }

    /// Creates or refreshes the (app, subscription, activity id) row. A refresh replaces the
    /// token and clears the end marker but never resets `started_at`; `stale_at` is clamped
    /// into the eight-hour active window (and defaults to its end).
    @discardableResult
    func register(app: String, subscriptionId: String, activityId: String, activityType: String,
                  token: String, staleAt: Int64?) throws -> (SandboxActivity, created: Bool) {
        let now = clock.now
        let existing = store.activities(app: app, subscriptionId: subscriptionId).first { $0.activityId == activityId }
        let startedAt = existing?.startedAt ?? now
        let windowEnd = startedAt + OpenPushLimits.activeWindowSeconds
        let stale = min(staleAt ?? windowEnd, windowEnd)
        let row = SandboxActivity(appId: app, subscriptionId: subscriptionId, activityId: activityId, activityType: activityType,
                                  updateToken: token, startedAt: startedAt, staleAt: stale, endedAt: nil)
        try store.putActivity(row)
        return (row, existing == nil)
    }

    /// The registered, reachable device a device-route body names by `subscription_id` or
    /// `device_token` (its ordinary push token).
    func lookupDevice(_ body: JSONObject, appId: String) -> SandboxDevice? {
        if let sub = body["subscription_id"]?.stringValue {
            guard let d = store.device(app: appId, subscriptionId: sub), d.isReachable else { return nil }
            return d
        }
        if let token = body["device_token"]?.stringValue?.lowercased() {
            return store.devices(app: appId).first { $0.isReachable && $0.pushToken?.lowercased() == token }
        }
        return nil
    }

    /// Appends the token rule's message when `token` is missing or not a valid APNs token.
    static func checkToken(_ token: String?, field: String = "token", into errors: inout [String]) {
        guard let token else { errors.append("\(field): is required"); return }
        if !OpenPushRules.isValidToken(token) {
            errors.append("\(field): must be a hex APNs token of even length, \(OpenPushLimits.tokenLengthRange.lowerBound)–\(OpenPushLimits.tokenLengthRange.upperBound) characters")
        }
    }
}
