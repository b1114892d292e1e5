/// What a translation did to one field of the caller's request.
public enum FindingKind: String, Sendable, CaseIterable, Codable {
    /// The field has no OpenPush equivalent and is not forwarded.
    case dropped
    /// The field is forwarded under another name.
    case renamed
    /// The value is forwarded in another unit or format (milliseconds → seconds, ISO → Unix).
    case converted
    /// The value is forwarded on another scale (relevance 1…100 → 0…1).
    case rescaled
    /// The field was absent and PushBridge sends an explicit value with the source's meaning.
    case defaulted
    /// A required OpenPush field the dialect lacks was made up from other fields.
    case synthesized
    /// Text was escaped so OpenPush's Liquid rendering shows it literally.
    case escaped
    /// A value OpenPush would reject was replaced with what the source provider does with it.
    case coerced
    /// The request cannot be forwarded because of this field.
    case rejected
    /// Something that cannot be fixed in translation and that the operator should know.
    case caveat

    /// The severity a finding of this kind has unless stated otherwise.
    public var defaultSeverity: Severity {
        switch self {
        case .rejected: .error
        case .renamed, .defaulted, .synthesized, .escaped: .info
        case .dropped, .converted, .rescaled, .coerced, .caveat: .warning
        }
    }
}

/// How much a finding matters to an operator.
public enum Severity: String, Sendable, CaseIterable, Codable, Comparable {
    /// Done as the source provider would have meant it; worth knowing.
    case info
    /// OpenPush will behave differently from the source provider here.
    case warning
    /// The request was refused.
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    /// Orders by importance.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}
