/// The first step of every dialect: the body must be a JSON object.
public enum BodyDecoding {
    /// Parses a body that must be one JSON object.
    public static func object(_ body: [UInt8]) -> Result<JSONObject, TranslationError> {
        object(ParsedBody(body))
    }

    /// The root object of an already parsed body, or the error a body that is not one JSON
    /// object gets (the same as ``object(_:)-([UInt8])`` gives for its bytes).
    public static func object(_ body: ParsedBody) -> Result<JSONObject, TranslationError> {
        if body.bytes.isEmpty { return .failure(TranslationError(field: "", rule: "request body is empty; a JSON object is required")) }
        switch body.parsed {
        case .success(.object(let o)): return .success(o)
        case .success: return .failure(TranslationError(field: "", rule: "request body must be a JSON object"))
        case .failure(let error): return .failure(TranslationError(field: "", rule: "malformed JSON", message: error.description))
        }
    }
}
