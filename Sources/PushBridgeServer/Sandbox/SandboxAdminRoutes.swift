import PushBridgeCore

extension SandboxEngine {
    /// `GET /_sandbox/sends[?app_id=…]`: `{"sends": [...]}`, oldest first.
    func listSends(_ request: HTTPRequest) -> HTTPResponse {
        let sends = store.sends(app: request.query["app_id"])
        return .json(200, .object(["sends": .array(sends.map(JSONValue.object))]))
    }

    /// `GET /_sandbox/devices[?app_id=…]`: `{"devices": [...]}`, each with its `app_id`, in
    /// registration order per app.
    func listDevices(_ request: HTTPRequest) -> HTTPResponse {
        let devices = appIds(request).flatMap { app in
            store.devices(app: app).map { device -> JSONValue in
                var o = device.json.objectValue ?? [:]
                o["app_id"] = .string(app)
                return .object(o)
            }
        }
        return .json(200, .object(["devices": .array(devices)]))
    }

    /// `GET /_sandbox/activities[?app_id=…]`: `{"activities": [...]}`, every Live Activity a
    /// device registered (open or ended), per app and device.
    func listActivities(_ request: HTTPRequest) -> HTTPResponse {
        let activities = appIds(request).flatMap { app in
            store.devices(app: app).flatMap { store.activities(app: app, subscriptionId: $0.subscriptionId) }.map { a -> JSONValue in
                .object(["app_id": .string(a.appId), "subscription_id": .string(a.subscriptionId), "activity_id": .string(a.activityId),
                         "activity_type": .string(a.activityType), "update_token": .string(a.updateToken), "started_at": .int(a.startedAt),
                         "stale_at": .int(a.staleAt), "ended_at": a.endedAt.map { .int($0) } ?? .null])
            }
        }
        return .json(200, .object(["activities": .array(activities)]))
    }

    private func appIds(_ request: HTTPRequest) -> [String] {
        if let app = request.query["app_id"] { return [app] }
        return store.allApps().map(\.id).sorted()
    }

    /// `POST /_sandbox/clock` with `{"advance_seconds": N}` or `{"now": T}`: `{"now": T}`.
    func moveClock(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        var r = FieldReader(body)
        let advance = r.integer("advance_seconds"), now = r.integer("now")
        if !r.errors.isEmpty { return SandboxResponses.errors(400, r.errors.map { "\($0.field): \($0.rule)" }) }
        switch (advance, now) {
        case (let a?, nil): clock.advance(by: a)
        case (nil, let t?): clock.set(t)
        default: return SandboxResponses.error(400, "advance_seconds: exactly one of advance_seconds or now is required")
        }
        return .json(200, .object(["now": .int(clock.now)]))
    }

    /// `POST /_sandbox/apps` with `{"id", "rest_key", "bundle_id"}`: creates or replaces an app.
    func createApp(_ request: HTTPRequest) throws -> HTTPResponse {
        let body: JSONObject
        switch SandboxResponses.objectBody(request) {
        case .fail(let r): return r
        case .ok(let b): body = b
        }
        var r = FieldReader(body)
        let id = r.string("id"), key = r.string("rest_key"), bundle = r.string("bundle_id")
        var errors = r.errors.map { "\($0.field): \($0.rule)" }
        for (field, value) in [("id", id), ("rest_key", key), ("bundle_id", bundle)] where value == nil || OpenPushRules.isBlank(value) {
            if !r.errors.contains(where: { $0.field == field }) { errors.append("\(field): is required and must be non-blank") }
        }
        guard errors.isEmpty, let id, let key, let bundle else { return SandboxResponses.errors(400, errors) }
        let created = store.app(id) == nil
        try store.putApp(SandboxApp(id: id, restKey: key, bundleId: bundle))
        return .json(created ? 201 : 200, .object(["id": .string(id), "bundle_id": .string(bundle)]))
    }
}
