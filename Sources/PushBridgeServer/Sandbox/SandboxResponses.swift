import PushBridgeCore

/// The sandbox's response shapes: every error is `{"errors": ["<field>: <rule>", …]}`.
enum SandboxResponses {
    /// An error response with one or more messages.
    static func errors(_ status: Int, _ messages: [String], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        .json(status, .object(["errors": .array(messages.map(JSONValue.string))]), headers: headers)
    }

    /// An error response with one message.
    static func error(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        errors(status, [message], headers: headers)
    }

    /// A 400 listing rule violations as `field: rule`.
    static func violations(_ v: [RuleViolation]) -> HTTPResponse {
        errors(400, v.map(\.description))
    }

    /// The documented 404 of the update/end route.
    static let noOpenActivity = "no live activity with that id is open on this app — an activity that has ended can never be updated again"

    /// The 404 of the device routes when the device is unknown.
    static let deviceNotRegistered = "device: the device's push token is not registered on this app — register the device first"

    /// Parses a request body that must be a JSON object.
    static func objectBody(_ request: HTTPRequest) -> SandboxOutcome<JSONObject> {
        if request.body.isEmpty { return .fail(error(400, "body: must be a JSON object")) }
        do {
            let value = try JSONParser.parse(request.body)
            guard case .object(let o) = value else { return .fail(error(400, "body: must be a JSON object, got \(value.typeName)")) }
            return .ok(o)
        } catch {
            return .fail(SandboxResponses.error(400, "body: \(error.description)"))
        }
    }
}

/// A parsed value, or the error response to send instead.
enum SandboxOutcome<Value> {
    /// Parsed.
    case ok(Value)
    /// Not parsed: answer with this.
    case fail(HTTPResponse)

    /// Transforms the parsed value.
    func map<T>(_ f: (Value) -> T) -> SandboxOutcome<T> {
        switch self {
        case .ok(let v): .ok(f(v))
        case .fail(let r): .fail(r)
        }
    }
}
