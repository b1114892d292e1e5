/// An inbound body with its JSON parse, done once and shared by every stage that reads it
/// (credential lookup, translation, redaction for the audit), so a request's body is parsed
/// one time however many stages look at it.
public struct ParsedBody: Sendable {
    /// The body as received.
    public let bytes: [UInt8]
    /// The JSON value, or why the body does not parse.
    public let parsed: Result<JSONValue, JSONParseError>

    /// Parses `bytes` (with the parser's default depth limit), the dialects' field names
    /// taken from ``InternedKeys/dialectFields`` rather than made anew.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        do {
            self.parsed = .success(try JSONParser.parse(bytes, keys: .dialectFields))
        } catch {
            self.parsed = .failure(error)
        }
    }

    /// The parsed value, nil when the body is not JSON.
    public var value: JSONValue? {
        if case .success(let value) = parsed { return value }
        return nil
    }

    /// The root object, nil when the body is not a JSON object.
    public var object: JSONObject? { value?.objectValue }
}
