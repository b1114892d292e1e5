/// Replaces every occurrence of a set of secrets in a text by the secret's fingerprint, in one
/// pass over the text whatever the number of secrets (an Aho–Corasick automaton over bytes):
/// building costs the secrets' total length, scrubbing the text's length. A run of 64 or more
/// hex digits (an APNs token's shape) is fingerprinted too, so a device token is caught where
/// no key names it.
///
/// Overlapping occurrences are replaced as one region; a region that is exactly one secret
/// becomes that secret's fingerprint, any other region the fingerprint of its own text.
/// Secrets shorter than ``Redaction/minimumSweepLength`` bytes are ignored (a one-character
/// "token" would erase that character everywhere).
public struct SecretScrubber: Sendable {
    /// Hex runs at least this long are taken for device tokens.
    public static let tokenRunLength = 64

    // The trie: state 0 is the root; children are a sibling list in flat arrays.
    private var label: [UInt8] = [0]
    private var firstChild: [Int32] = [-1]
    private var sibling: [Int32] = [-1]
    private var fail: [Int32] = [0]
    /// Length of the longest secret that is a suffix of the state's text (0: none), and which.
    private var matchLength: [Int32] = [0]
    private var matchSecret: [Int32] = [-1]
    private var rootChildren = [Int32](repeating: -1, count: 256)
    private var replacements: [String] = []

    /// A scrubber for `secrets`, replacing each by `fingerprint(secret)`.
    public init<S: Sequence>(secrets: S, fingerprint: (String) -> String) where S.Element == String {
        var seen = Set<String>()
        for secret in secrets where secret.utf8.count >= Redaction.minimumSweepLength && seen.insert(secret).inserted {
            insert(secret, replacement: fingerprint(secret))
        }
        linkFailures()
    }

    /// True when no secret is swept (hex runs still are).
    public var isEmpty: Bool { replacements.isEmpty }

    private mutating func insert(_ secret: String, replacement: String) {
        var state: Int32 = 0
        for byte in secret.utf8 {
            if let next = child(state, byte) { state = next; continue }
            let new = Int32(label.count)
            label.append(byte)
            firstChild.append(-1)
            fail.append(0)
            matchLength.append(0)
            matchSecret.append(-1)
            if state == 0 {
                sibling.append(-1)
                rootChildren[Int(byte)] = new
            } else {
                sibling.append(firstChild[Int(state)])
                firstChild[Int(state)] = new
            }
            state = new
        }
        matchLength[Int(state)] = Int32(secret.utf8.count)
        matchSecret[Int(state)] = Int32(replacements.count)
        replacements.append(replacement)
    }

    private func child(_ state: Int32, _ byte: UInt8) -> Int32? {
        if state == 0 {
            let c = rootChildren[Int(byte)]
            return c < 0 ? nil : c
        }
        var c = firstChild[Int(state)]
        while c >= 0 {
            if label[Int(c)] == byte { return c }
            c = sibling[Int(c)]
        }
        return nil
    }

    /// Breadth first: each state's failure link and its longest secret suffix.
    private mutating func linkFailures() {
        var queue: [Int32] = rootChildren.filter { $0 >= 0 }
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            var c = firstChild[Int(state)]
            while c >= 0 {
                let byte = label[Int(c)]
                var f = fail[Int(state)]
                while f != 0 && child(f, byte) == nil { f = fail[Int(f)] }
                let target = child(f, byte) ?? 0
                fail[Int(c)] = target == c ? 0 : target
                if matchLength[Int(c)] == 0 {
                    matchLength[Int(c)] = matchLength[Int(fail[Int(c)])]
                    matchSecret[Int(c)] = matchSecret[Int(fail[Int(c)])]
                }
                queue.append(c)
                c = sibling[Int(c)]
            }
        }
    }

    /// `text` with every secret and every hex run of ``tokenRunLength`` or more replaced;
    /// `fingerprint` names a region that is not exactly one secret (a hex run, an overlap).
    public func scrub(_ text: String, fingerprint: (String) -> String) -> String {
        var text = text
        guard let out = text.withUTF8({ scrubbed($0, fingerprint) }) else { return text }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes` (UTF-8 text) scrubbed like ``scrub(_:fingerprint:)``, or the same bytes when
    /// nothing matched.
    public func scrub(bytes: [UInt8], fingerprint: (String) -> String) -> [UInt8] {
        bytes.withUnsafeBufferPointer { scrubbed($0, fingerprint) } ?? bytes
    }

    /// A region to replace: `[start, end]` and the secret it is exactly (-1: its own text).
    private struct Region {
        var start: Int
        var end: Int
        var secret: Int32
    }

    /// nil when nothing in `text` is to be replaced.
    private func scrubbed(_ text: UnsafeBufferPointer<UInt8>, _ fingerprint: (String) -> String) -> [UInt8]? {
        var regions: [Region] = []
        func add(_ region: Region) {
            var region = region
            while let last = regions.last, last.end >= region.start {
                if last.start < region.start || last.secret != region.secret || last.end != region.end { region.secret = -1 }
                region.start = min(region.start, last.start)
                regions.removeLast()
            }
            regions.append(region)
        }
        var state: Int32 = 0
        var hexStart = -1
        for i in 0..<text.count {
            let byte = text[i]
            if isHex(byte) {
                if hexStart < 0 { hexStart = i }
            } else if hexStart >= 0 {
                if i - hexStart >= Self.tokenRunLength { add(Region(start: hexStart, end: i - 1, secret: -1)) }
                hexStart = -1
            }
            guard !replacements.isEmpty else { continue }
            while state != 0 && child(state, byte) == nil { state = fail[Int(state)] }
            state = child(state, byte) ?? 0
            let length = Int(matchLength[Int(state)])
            if length > 0 { add(Region(start: i - length + 1, end: i, secret: matchSecret[Int(state)])) }
        }
        if hexStart >= 0, text.count - hexStart >= Self.tokenRunLength { add(Region(start: hexStart, end: text.count - 1, secret: -1)) }
        guard !regions.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var at = 0
        for region in regions {
            out.append(contentsOf: text[at..<region.start])
            let replacement = region.secret >= 0 ? replacements[Int(region.secret)]
                : fingerprint(String(decoding: UnsafeBufferPointer(rebasing: text[region.start...region.end]), as: UTF8.self))
            out.append(contentsOf: replacement.utf8)
            at = region.end + 1
        }
        out.append(contentsOf: text[at...])
        return out
    }

    private func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
    }
}
