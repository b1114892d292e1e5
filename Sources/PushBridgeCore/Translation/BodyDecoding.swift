/// The first step of every dialect: the body must be a JSON object.
public enum BodyDecoding {
    /// Parses a body that must be one JSON object.
    public static func object(_ body: [UInt8]) -> Result<JSONObject, TranslationError> {
        if body.isEmpty { return .failure(TranslationError(field: "", rule: "request body is empty; a JSON object is required")) }
        do {
            guard case .object(let o) = try JSONParser.parse(body) else {
                return .failure(TranslationError(field: "", rule: "request body must be a JSON object"))
            }
            return .success(o)
        } catch {
            return .failure(TranslationError(field: "", rule: "malformed JSON", message: error.description))
        }
    }
}
