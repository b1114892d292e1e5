/// The Aho–Corasick automaton of a ``SecretScrubber``: built as a ``SecretScrubber/Trie``,
/// then frozen into one shared object.
extension SecretScrubber {
    /// The trie while it is built: state 0 is the root; children are a sibling list in flat arrays.
    struct Trie: Sendable {
        var label: [UInt8] = [0]
        var firstChild: [Int32] = [-1]
        var sibling: [Int32] = [-1]
        var fail: [Int32] = [0]
        /// Length of the longest secret that is a suffix of the state's text (0: none), and which.
        var matchLength: [Int32] = [0]
        var matchSecret: [Int32] = [-1]
        var rootChildren = [Int32](repeating: -1, count: 256)
        var replacements: [String] = []

        /// An empty trie with room for `capacity` states (the secrets' bytes and the root), so
        /// that inserting grows no array.
        init(capacity: Int) {
            label.reserveCapacity(capacity)
            firstChild.reserveCapacity(capacity)
            sibling.reserveCapacity(capacity)
            fail.reserveCapacity(capacity)
            matchLength.reserveCapacity(capacity)
            matchSecret.reserveCapacity(capacity)
        }

        mutating func insert(_ secret: String, replacement: String) {
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

        func child(_ state: Int32, _ byte: UInt8) -> Int32? {
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
        mutating func linkFailures() {
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
    }

    /// The finished automaton: the trie, read only and shared.
    final class Automaton: Sendable {
        let trie: Trie
        var replacements: [String] { trie.replacements }

        init(_ trie: Trie) { self.trie = trie }

        /// A region to replace: `[start, end]` and the secret it is exactly (-1: its own text).
        private struct Region {
            var start: Int
            var end: Int
            var secret: Int32
        }

        /// nil when nothing in `text` is to be replaced.
        func scrubbed(_ text: UnsafeBufferPointer<UInt8>, _ fingerprint: (String) -> String) -> [UInt8]? {
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
                    if i - hexStart >= SecretScrubber.tokenRunLength { add(Region(start: hexStart, end: i - 1, secret: -1)) }
                    hexStart = -1
                }
                guard !trie.replacements.isEmpty else { continue }
                while state != 0 && trie.child(state, byte) == nil { state = trie.fail[Int(state)] }
                state = trie.child(state, byte) ?? 0
                let length = Int(trie.matchLength[Int(state)])
                if length > 0 { add(Region(start: i - length + 1, end: i, secret: trie.matchSecret[Int(state)])) }
            }
            if hexStart >= 0, text.count - hexStart >= SecretScrubber.tokenRunLength { add(Region(start: hexStart, end: text.count - 1, secret: -1)) }
            guard !regions.isEmpty else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(text.count)
            var at = 0
            for region in regions {
                out.append(contentsOf: text[at..<region.start])
                let replacement = region.secret >= 0 ? trie.replacements[Int(region.secret)]
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
}
