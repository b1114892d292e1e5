/// Where a JSON document's strings and secret values are, by offset in its own bytes: one scan
/// of a document the ``JSONParser`` already accepted, with no tree built. What
/// ``Redaction/redactedBytes(_:dialect:extraSecrets:made:fingerprint:)`` replaces and sweeps.
///
/// A *key* and a *string* are spans of a quoted string (quotes included) to sweep; a *secret*
/// is a scalar under a secret key (``Redaction/isSecretKey(_:dialect:)``), at any depth below
/// it, to write as its fingerprint. `null` under a secret key stays `null`, as in the tree path,
/// so it is no span.
struct JSONSecretSpans {
    /// What a span holds.
    enum Kind: UInt8 {
        /// An object key.
        case key
        /// A string value not under a secret key.
        case string
        /// A string, number or boolean under a secret key.
        case secret
        /// A string, number or boolean under a secret key below a targeting key (see
        /// `targetingDepth`): the tree path fingerprints it twice, once as a targeting id and
        /// once under its key, and so does the byte path.
        case secretTwice

        /// A value to write as its fingerprint (once or twice).
        var isSecret: Bool { self == .secret || self == .secretTwice }
    }

    /// One span: `start..<end` in the document's bytes.
    struct Span {
        /// The first byte (the opening quote of a string).
        var start: Int
        /// One past the last byte (past the closing quote of a string).
        var end: Int
        /// What it holds.
        var kind: Kind
        /// A string with at least one escape (its text differs from its bytes).
        var escaped: Bool
    }

    /// The spans, in document order.
    private(set) var spans: [Span] = []
    /// Whitespace outside strings was met (the compact re-serialization leaves it out).
    private(set) var hasWhitespace = false

    /// The spans of `bytes`, a document the parser accepted, or nil when the scan meets
    /// anything it does not expect there (the caller then redacts the parsed tree instead).
    ///
    /// `targetingDepth`: the keys of objects opened at that depth (1 is the document's own
    /// container) named in ``Redaction/tokenTargetingKeys`` make their values secret too, as
    /// ``Redaction/fingerprintTargeting(_:fingerprint:)`` does for the audit's copy of a
    /// Pushwoosh translation. Below a secret key below such a key (an alias label such as
    /// `pw_token`) values are ``Kind/secretTwice``, as the tree fingerprints them.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, dialect: DialectName?, targetingDepth: Int? = nil) {
        // Per open container: an object, whether it lies under a secret key, whether that
        // key is a targeting one, and whether a secret key lies between them. On the stack
        // (an array of them was an allocation per scan, two per request); a document nested
        // deeper than 80 levels is left to the tree (nil), which the parser's own limit
        // (``JSONParser/defaultMaxDepth``, plus the audit envelope's two levels) never reaches.
        var containers = InlineArray<80, Container>(repeating: Container(object: false, secret: false, targeting: false, twice: false))
        var depth = 0
        var expectKey = false
        // Whether the next value is under a secret key (set by its key, or by its container),
        // whether under a targeting key, and whether under a secret key below that one.
        var valueSecret = false, valueTargeting = false, valueTwice = false
        var i = 0
        let n = bytes.count
        spans.reserveCapacity(32)
        while i < n {
            let b = bytes[i]
            switch b {
            case 0x20, 0x0A, 0x0D, 0x09:
                hasWhitespace = true
                i += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let object = b == UInt8(ascii: "{")
                guard depth < containers.count else { return nil }
                containers[depth] = Container(object: object, secret: valueSecret, targeting: valueTargeting, twice: valueTwice)
                depth += 1
                expectKey = object
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { return nil }
                depth -= 1
                expectKey = false
                i += 1
            case UInt8(ascii: ","):
                guard depth > 0 else { return nil }
                let top = containers[depth - 1]
                expectKey = top.object
                valueSecret = top.secret
                valueTargeting = top.targeting
                valueTwice = top.twice
                i += 1
            case UInt8(ascii: ":"):
                i += 1
            case UInt8(ascii: "\""):
                let start = i
                var escaped = false
                i += 1
                while i < n, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\") { escaped = true; i += 1 }
                    i += 1
                }
                guard i < n else { return nil }
                i += 1
                if expectKey {
                    let top = depth == 0 ? nil : containers[depth - 1]
                    let inherited = top?.secret ?? false
                    valueTargeting = top?.targeting ?? false
                    valueTwice = top?.twice ?? false
                    if valueTargeting && !valueTwice {
                        guard let secret = Self.isSecretKey(bytes, start..<i, escaped: escaped, dialect: dialect) else { return nil }
                        valueTwice = secret
                    }
                    if !inherited, depth == targetingDepth {
                        guard let targeting = Self.isTargetingKey(bytes, start..<i, escaped: escaped) else { return nil }
                        valueTargeting = targeting
                    }
                    guard let secret = inherited || valueTargeting ? true : Self.isSecretKey(bytes, start..<i, escaped: escaped, dialect: dialect) else { return nil }
                    spans.append(Span(start: start, end: i, kind: .key, escaped: escaped))
                    valueSecret = secret
                    expectKey = false
                } else {
                    spans.append(Span(start: start, end: i, kind: valueTwice ? .secretTwice : valueSecret ? .secret : .string, escaped: escaped))
                }
            default:
                // A number, `true`, `false` or `null`: up to the next delimiter.
                let start = i
                while i < n, !Self.endsLiteral(bytes[i]) { i += 1 }
                if valueSecret && b != UInt8(ascii: "n") { spans.append(Span(start: start, end: i, kind: valueTwice ? .secretTwice : .secret, escaped: false)) }
            }
        }
        guard depth == 0 else { return nil }
    }

    /// One open container while scanning (see ``init(_:dialect:targetingDepth:)``).
    private struct Container {
        /// An object (keys come next after `{` and `,`), not an array.
        var object: Bool
        /// It lies under a secret key.
        var secret: Bool
        /// That key is a targeting one.
        var targeting: Bool
        /// A secret key lies between the targeting key and it.
        var twice: Bool
    }

    /// Whether `byte` ends a number or literal.
    private static func endsLiteral(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: true
        default: false
        }
    }

    /// Whether the quoted key at `range` names a secret; nil if an escaped key does not decode.
    /// An ASCII key without escapes is told on its bytes, without making a `String`.
    private static func isSecretKey(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, escaped: Bool, dialect: DialectName?) -> Bool? {
        let inner = UnsafeBufferPointer(rebasing: bytes[range.lowerBound + 1..<range.upperBound - 1])
        if !escaped, inner.allSatisfy({ $0 < 0x80 }) { return Redaction.isSecretKey(ascii: inner, dialect: dialect) }
        guard let key = text(bytes, range, escaped: escaped) else { return nil }
        return Redaction.isSecretKey(key, dialect: dialect)
    }

    /// Whether the quoted key at `range` is one of ``Redaction/tokenTargetingKeys``; nil if an
    /// escaped key does not decode.
    private static func isTargetingKey(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, escaped: Bool) -> Bool? {
        if !escaped {
            let start = range.lowerBound + 1, count = range.count - 2
            let words = targetingKeyBytes
            for w in 0..<words.count where words[w].count == count {
                var same = true
                for i in 0..<count where words[w][i] != bytes[start + i] { same = false; break }
                if same { return true }
            }
            return false
        }
        guard let key = text(bytes, range, escaped: true) else { return nil }
        return Redaction.tokenTargetingKeys.contains(key)
    }

    /// ``Redaction/tokenTargetingKeys`` as bytes.
    private static let targetingKeyBytes: [[UInt8]] = Redaction.tokenTargetingKeys.map { Array($0.utf8) }

    /// The text of the quoted string at `range` (escapes decoded by the parser), or nil when
    /// it does not decode.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, escaped: Bool) -> String? {
        guard escaped else { return String(decoding: UnsafeBufferPointer(rebasing: bytes[range.lowerBound + 1..<range.upperBound - 1]), as: UTF8.self) }
        guard case .string(let text)? = try? JSONParser.parse(Array(bytes[range])) else { return nil }
        return text
    }
}
