import Foundation
import PushBridgeCore

/// The OneSignal double: `POST /apps/{app_id}/activities/activity/{activity_type}` (start,
/// also under `/api/v1`) answers 201 `{"notification_id"}`; `POST
/// /apps/{app_id}/live_activities/{activity_id}/notifications` (update or end) answers 201
/// `{"id"}`, or 404 for an activity it never started or that has ended. Errors are
/// `{"errors": ["…"]}`: 403 without an `Authorization: Key|Basic <key>` header, 400 for an
/// app id that is not a UUID or a body breaking the documented rules.
enum OneSignalDouble {
    /// The 404 of an update or end for an activity this double does not know, in the words of
    /// OneSignal's documented 404.
    static let unknownActivity = "Activity was not found in the app: no Live Activity with this activity_id was started (or it has ended)"
    /// The 403 without a usable key.
    static let accessDenied = "Access denied. Please include an 'Authorization: Key <REST API key>' header."

    /// Answers one request below the double's prefix (`path` split into segments).
    static func handle(_ request: HTTPRequest, path: [String], activities: inout LegacyDoubleActivities, now: Int64) -> LegacyDoubleExchange {
        let body = LegacyDoubleRequest.json(request)
        var exchange = LegacyDoubleExchange(response: notFound, credential: LegacyDoubleRequest.headerFingerprint(request))
        let s = path.first == "api" && path.dropFirst().first == "v1" ? Array(path.dropFirst(2)) : path
        let start = s.count == 5 && s[0] == "apps" && s[2] == "activities" && s[3] == "activity"
        let update = s.count == 5 && s[0] == "apps" && s[2] == "live_activities" && s[4] == "notifications"
        guard start || update else { return exchange }
        guard request.method == "POST" else {
            exchange.response = errors(405, ["method: \(request.method) is not allowed here; use POST"])
            return exchange
        }
        guard LegacyDoubleRequest.key(request, schemes: ["key", "basic"]) != nil else {
            exchange.response = errors(403, [accessDenied])
            return exchange
        }
        let app = s[1]
        guard UUID(uuidString: app) != nil else {
            exchange.response = errors(400, ["app_id: must be a OneSignal app id (a UUID), got \(app)"])
            return exchange
        }
        guard let o = body?.objectValue else {
            exchange.response = errors(400, ["body: must be a JSON object"])
            return exchange
        }
        if start {
            exchange.response = answerStart(o, app: app, activities: &activities, now: now)
        } else {
            exchange.response = answerUpdate(o, app: app, activityId: s[3], activities: &activities, now: now)
        }
        return exchange
    }

    private static func answerStart(_ o: JSONObject, app: String, activities: inout LegacyDoubleActivities, now: Int64) -> HTTPResponse {
        var problems: [String] = []
        if let event = o["event"], event != .string("start") { problems.append("event: must be \"start\" on this route") }
        if !LegacyDoubleRequest.isText(o["activity_id"]) { problems.append("activity_id: must be a non-blank string") }
        problems += commonProblems(o)
        guard problems.isEmpty, let id = o["activity_id"]?.stringValue else { return errors(400, problems) }
        activities.start(.init(provider: .onesignal, app: app, id: id), at: now)
        return .json(201, .object(["notification_id": .string(LegacyDoubleRequest.newId())]))
    }

    private static func answerUpdate(_ o: JSONObject, app: String, activityId: String, activities: inout LegacyDoubleActivities, now: Int64) -> HTTPResponse {
        var problems: [String] = []
        let event = o["event"]?.stringValue
        if event != "update" && event != "end" { problems.append("event: must be \"update\" or \"end\"") }
        if o["event_updates"]?.objectValue == nil { problems.append("event_updates: is required and must be an object") }
        if !LegacyDoubleRequest.isText(o["name"]) { problems.append("name: is required") }
        problems += commonProblems(o)
        guard problems.isEmpty else { return errors(400, problems) }
        let key = LegacyDoubleActivities.Key(provider: .onesignal, app: app, id: activityId)
        guard activities.isOpen(key) else { return errors(404, [unknownActivity]) }
        activities.touch(key, ending: event == "end", at: now)
        return .json(201, .object(["id": .string(LegacyDoubleRequest.newId())]))
    }

    /// The documented rules both routes share: `name` at most 128 characters, `contents.en`
    /// present when `contents` is, `priority` 5 or 10.
    private static func commonProblems(_ o: JSONObject) -> [String] {
        var problems: [String] = []
        if let name = o["name"]?.stringValue, name.count > 128 { problems.append("name: must be at most 128 characters") }
        if let contents = o["contents"] {
            if !LegacyDoubleRequest.isText(contents.objectValue?["en"]) { problems.append("contents.en: is required when contents is given") }
        }
        if let priority = o["priority"], priority.numberValue?.int64Value != 5 && priority.numberValue?.int64Value != 10 {
            problems.append("priority: must be 5 or 10")
        }
        return problems
    }

    /// The answer for a path this double does not serve.
    static let notFound = errors(404, ["not found: the OneSignal double serves only the Live Activity start, update and end routes"])

    /// A OneSignal error answer.
    static func errors(_ status: Int, _ messages: [String]) -> HTTPResponse {
        .json(status, .object(["errors": .array(messages.map(JSONValue.string))]))
    }
}
