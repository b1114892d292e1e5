import PushBridgeCore

extension TestConfiguration.Fragments {
    /// The fragments of the older ``ProxyHarness`` initialiser: `limits` a JSON object, the
    /// `…Extra` strings members (each starting with a comma) of the top level or of app `pw`
    /// or `os`, `apps` a JSON array. Text that is not JSON is an error naming it.
    init(limits: String, topExtra: String, pushwooshExtra: String, oneSignalExtra: String, apps: String?) throws {
        self.init()
        self.limits = try Self.object(limits)
        top = try Self.members(topExtra)
        if !pushwooshExtra.isEmpty { self.apps["pw"] = try Self.members(pushwooshExtra) }
        if !oneSignalExtra.isEmpty { self.apps["os"] = try Self.members(oneSignalExtra) }
        appsArray = try apps.map(Self.parse)
    }

    /// `", "a": 1, "b": {…}"` as an object.
    static func members(_ text: String) throws -> JSONObject {
        let trimmed = text.drop { $0 == " " || $0 == "\n" }
        return try object("{" + (trimmed.hasPrefix(",") ? String(trimmed.dropFirst()) : String(trimmed)) + "}")
    }

    /// A JSON object's text as an object.
    static func object(_ text: String) throws -> JSONObject {
        guard let object = try parse(text).objectValue else { throw FragmentError(text: text, reason: "not a JSON object") }
        return object
    }

    private static func parse(_ text: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(Array(text.utf8))
        } catch {
            throw FragmentError(text: text, reason: error.description)
        }
    }

    /// A configuration fragment a test wrote that is not what it should be.
    struct FragmentError: Error, CustomStringConvertible {
        var text: String
        var reason: String
        var description: String { "a test's configuration fragment: \(reason): \(text)" }
    }
}
