import PushBridgeCore

/// The Pushwoosh double: `POST /json/1.3/startLiveActivity` and `POST
/// /json/1.3/updateLiveActivity` with the `{"request": {"application", "auth",
/// "notifications": [...]}}` envelope. Success is HTTP 200 `{"status_code": 200,
/// "status_message": "OK", "response": {"Messages": [one id per notification]}}`; an argument
/// error (a missing or malformed field, an application code not shaped `XXXXX-XXXXX`) is HTTP
/// 200 with `status_code` 210, every problem in `status_message` and `"response": null`. An
/// update of a `live_activity_id` it never started or that has ended — an error Pushwoosh does
/// not document — is HTTP 404 with `status_code` 404 in the same envelope (the shape PushBridge
/// answers an unknown Pushwoosh route with, and the answer its routing reads as "this provider
/// does not know the activity"). Nothing of a refused request is applied.
enum PushwooshDouble {
    /// The message of a request without a usable `auth`, in Pushwoosh's words.
    static let accessDenied = "Access denied or application not found"

    /// Answers one request below the double's prefix.
    static func handle(_ request: HTTPRequest, path: [String], activities: inout LegacyDoubleActivities, now: Int64) -> LegacyDoubleExchange {
        let body = LegacyDoubleRequest.json(request)
        var exchange = LegacyDoubleExchange(response: notFound, credential: nil)
        guard path.count == 3, path[0] == "json", path[1] == "1.3", path[2] == "startLiveActivity" || path[2] == "updateLiveActivity" else { return exchange }
        guard request.method == "POST" else {
            exchange.response = answer(405, code: 405, "method \(request.method) is not allowed; use POST")
            return exchange
        }
        let starting = path[2] == "startLiveActivity"
        guard let envelope = body?.objectValue?["request"]?.objectValue else {
            exchange.response = argumentError(["request: the body must be a JSON object with a \"request\" object"])
            return exchange
        }
        if let auth = envelope["auth"]?.stringValue { exchange.credential = Fingerprint.of(auth) }
        guard LegacyDoubleRequest.isText(envelope["auth"]) else {
            exchange.response = argumentError([accessDenied])
            return exchange
        }
        let application = envelope["application"]?.stringValue ?? ""
        guard isApplicationCode(application) else {
            exchange.response = argumentError(["application: must be a Pushwoosh application code (XXXXX-XXXXX)"])
            return exchange
        }
        guard let notifications = envelope["notifications"]?.arrayValue, !notifications.isEmpty else {
            exchange.response = argumentError(["notifications: must be a non-empty array"])
            return exchange
        }
        var problems: [String] = []
        var unknown: [String] = []
        var planned: [(LegacyDoubleActivities.Key, Bool)] = []
        for (i, value) in notifications.enumerated() {
            let label = "notifications[\(i)]"
            guard let n = value.objectValue else {
                problems.append("\(label): must be an object")
                continue
            }
            let found = starting ? startProblems(n) : updateProblems(n)
            problems += found.map { "\(label).\($0)" }
            guard found.isEmpty, let id = n["live_activity_id"]?.stringValue else { continue }
            let key = LegacyDoubleActivities.Key(provider: .pushwoosh, app: application, id: id)
            if !starting, !activities.isOpen(key) {
                unknown.append("\(label).live_activity_id: no Live Activity \(id) was started on this application (or it has ended)")
            }
            planned.append((key, n["live_activity"]?.objectValue?["event"]?.stringValue == "end"))
        }
        guard problems.isEmpty else {
            exchange.response = argumentError(problems)
            return exchange
        }
        guard unknown.isEmpty else {
            exchange.response = answer(404, code: 404, unknown.joined(separator: "; "))
            return exchange
        }
        for (key, ending) in planned {
            if starting { activities.start(key, at: now) } else { activities.touch(key, ending: ending, at: now) }
        }
        let ids = planned.map { _ in JSONValue.string(messageCode()) }
        exchange.response = .json(200, .object(["status_code": .int(200), "status_message": .string("OK"), "response": .object(["Messages": .array(ids)])]))
        return exchange
    }

    /// The documented required fields of a start's notification.
    private static func startProblems(_ n: JSONObject) -> [String] {
        var problems: [String] = []
        if !LegacyDoubleRequest.isText(n["live_activity_id"]) { problems.append("live_activity_id: is required") }
        if n["content"]?.stringValue == nil { problems.append("content: is required") }
        guard let live = n["live_activity"]?.objectValue else { return problems + ["live_activity: is required and must be an object"] }
        if let event = live["event"], event != .string("start") { problems.append("live_activity.event: must be \"start\" on startLiveActivity") }
        if live["content-state"]?.objectValue == nil { problems.append("live_activity.content-state: is required and must be an object") }
        if !LegacyDoubleRequest.isText(live["attributes-type"]) { problems.append("live_activity.attributes-type: is required") }
        if live["attributes"]?.objectValue == nil { problems.append("live_activity.attributes: is required and must be an object") }
        return problems
    }

    /// The documented required fields of an update's notification.
    private static func updateProblems(_ n: JSONObject) -> [String] {
        var problems: [String] = []
        if !LegacyDoubleRequest.isText(n["live_activity_id"]) { problems.append("live_activity_id: is required") }
        guard let live = n["live_activity"]?.objectValue else { return problems + ["live_activity: is required and must be an object"] }
        let event = live["event"]?.stringValue
        if event != "update" && event != "end" { problems.append("live_activity.event: must be \"update\" or \"end\"") }
        if live["content-state"]?.objectValue == nil { problems.append("live_activity.content-state: is required and must be an object") }
        return problems
    }

    /// Whether `code` is shaped like a Pushwoosh application code: five letters or digits, a
    /// dash, five more.
    static func isApplicationCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { $0.count == 5 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// A message code shaped like Pushwoosh's (`XXXXX-XXXXXXXX-XXXXXXXX`, hex).
    static func messageCode() -> String {
        let hex = Array(LegacyDoubleRequest.newId().replacingOccurrences(of: "-", with: "").uppercased())
        return String(hex[0..<5]) + "-" + String(hex[5..<13]) + "-" + String(hex[13..<21])
    }

    /// The answer for a path this double does not serve.
    static let notFound = answer(404, code: 404, "not found: the Pushwoosh double serves only startLiveActivity and updateLiveActivity")

    /// An argument error (HTTP 200, `status_code` 210).
    static func argumentError(_ problems: [String]) -> HTTPResponse { answer(200, code: 210, problems.joined(separator: "; ")) }

    private static func answer(_ http: Int, code: Int, _ message: String) -> HTTPResponse {
        .json(http, .object(["status_code": .int(Int64(code)), "status_message": .string(message), "response": .null]))
    }
}
