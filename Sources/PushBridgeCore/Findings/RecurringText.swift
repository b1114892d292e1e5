/// A sentence that recurs from request to request with the same bytes (a segment's caveat, the
/// fan-out caveat): built as a ``MessageText`` is, then taken from ``SentenceCache`` when the
/// same bytes were made before, so its `String` is made once and shared. `RecurringText("…").text`
/// is the same text as `MessageText("…").text`, byte for byte.
public struct RecurringText: ExpressibleByStringInterpolation, Sendable {
    /// The sentence.
    public let text: String

    /// A sentence without interpolations.
    public init(stringLiteral value: String) { text = value }

    /// A sentence from its interpolated pieces: the held `String` of the same bytes, or one
    /// made from them and held.
    public init(stringInterpolation pieces: MessageText.Pieces) {
        text = pieces.withBytes { SentenceCache.text($0) }
    }
}
