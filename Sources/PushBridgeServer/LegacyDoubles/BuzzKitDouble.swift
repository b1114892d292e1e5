import PushBridgeCore

/// The BuzzKit double: `POST /v1/live-activities/send` with `Authorization: Bearer <token>`.
/// Success is HTTP 200 `{"id", "event", "activityId", "results": []}` (a start without an
/// `activityId` gets one, as the SDK's `Activity.id` would be; the double has no registered
/// tokens, so `results` is empty). Errors are `{"error": {"code", "message"}}`: 401
/// `unauthorized` without a bearer token, 400 `invalid_request` for a body breaking the
/// documented rules, 404 `not_found` for an update or end of an activity it never started or
/// that has ended. Activities are kept per token (BuzzKit's workspace).
enum BuzzKitDouble {
    /// Answers one request below the double's prefix.
    static func handle(_ request: HTTPRequest, path: [String], activities: inout LegacyDoubleActivities, now: Int64) -> LegacyDoubleExchange {
        let body = LegacyDoubleRequest.json(request)
        var exchange = LegacyDoubleExchange(response: notFound, credential: LegacyDoubleRequest.headerFingerprint(request))
        guard path == ["v1", "live-activities", "send"] else { return exchange }
        guard request.method == "POST" else {
            exchange.response = error(405, "method_not_allowed", "use POST")
            return exchange
        }
        guard let token = LegacyDoubleRequest.key(request, schemes: ["bearer"]) else {
            exchange.response = error(401, "unauthorized", "an Authorization: Bearer <token> header with the messages:send scope is required")
            return exchange
        }
        guard let o = body?.objectValue else {
            exchange.response = error(400, "invalid_request", "body: must be a JSON object")
            return exchange
        }
        var problems: [String] = []
        let event = o["event"]?.stringValue
        if !["start", "update", "end"].contains(event ?? "") { problems.append("event: must be start, update or end") }
        if o["contentState"]?.objectValue == nil { problems.append("contentState: is required and must be an object") }
        if let to = o["to"], !LegacyDoubleRequest.isText(to) { problems.append("to: must be a non-blank string") }
        if let id = o["activityId"], !LegacyDoubleRequest.isText(id) { problems.append("activityId: must be a non-blank string") }
        if let priority = o["priority"], priority != .string("high") && priority != .string("normal") { problems.append("priority: must be high or normal") }
        if event == "start" {
            if !LegacyDoubleRequest.isText(o["attributesType"]) { problems.append("attributesType: is required on start") }
            if let attributes = o["attributes"], attributes.objectValue == nil { problems.append("attributes: must be an object") }
        } else if event != nil, o["activityId"] == nil {
            problems.append("activityId: is required on \(event ?? "")")
        }
        guard problems.isEmpty, let event else {
            exchange.response = error(400, "invalid_request", problems.joined(separator: "; "))
            return exchange
        }
        let workspace = Fingerprint.of(token)
        let id = o["activityId"]?.stringValue ?? "bk_" + LegacyDoubleRequest.newId()
        let key = LegacyDoubleActivities.Key(provider: .buzzkit, app: workspace, id: id)
        if event == "start" {
            activities.start(key, at: now)
        } else {
            guard activities.isOpen(key) else {
                exchange.response = error(404, "not_found", "no Live Activity \(id) is running for this subscriber (never started here, or it has ended)")
                return exchange
            }
            activities.touch(key, ending: event == "end", at: now)
        }
        exchange.response = .json(200, .object(["id": .string(LegacyDoubleRequest.newId()), "event": .string(event), "activityId": .string(id), "results": .array([])]))
        return exchange
    }

    /// The answer for a path this double does not serve.
    static let notFound = error(404, "not_found", "the BuzzKit double serves only POST /v1/live-activities/send")

    /// A BuzzKit error answer.
    static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        .json(status, .object(["error": .object(["code": .string(code), "message": .string(message)])]))
    }
}
