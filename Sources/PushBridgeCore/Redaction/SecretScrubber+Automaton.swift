/// The Aho–Corasick automaton of a ``SecretScrubber``: built as a ``SecretScrubber/Trie``,
/// then frozen into one shared object.
extension SecretScrubber {
    /// The trie while it is built: state 0 is the root; children are a sibling list, every
    /// state one ``Node`` in one array (one append per state, one bounds check per look-up).
    struct Trie: Sendable {
        /// One state.
        struct Node: Sendable {
            /// The byte that leads here from the parent.
            var label: UInt8
            /// The first of its children (-1: none); the others follow by `sibling`.
            var firstChild: Int32 = -1
            /// The next child of the same parent (-1: the last).
            var sibling: Int32 = -1
            /// The state of the longest proper suffix of its text that is a state too.
            var fail: Int32 = 0
            /// Length of the longest secret that is a suffix of the state's text (0: none), and which.
            var matchLength: Int32 = 0
            var matchSecret: Int32 = -1
        }

        /// The states; the root first.
        var nodes: [Node] = [Node(label: 0)]
        /// The root's children by byte (-1: none), looked up without a list.
        var rootChildren = [Int32](repeating: -1, count: 256)
        /// Each secret's fingerprint, by the secret's number.
        var replacements: [String] = []

        /// An empty trie with room for `capacity` states (the secrets' bytes and the root), so
        /// that inserting grows no array.
        init(capacity: Int) {
            nodes.reserveCapacity(capacity)
        }

        /// Adds the states of `secret`, replaced by `replacement` where it is found.
        mutating func insert(_ secret: String, replacement: String) {
            var state: Int32 = 0
            for byte in secret.utf8 {
                if let next = child(state, byte) { state = next; continue }
                let new = Int32(nodes.count)
                var node = Node(label: byte)
                if state == 0 {
                    rootChildren[Int(byte)] = new
                } else {
                    node.sibling = nodes[Int(state)].firstChild
                    nodes[Int(state)].firstChild = new
                }
                nodes.append(node)
                state = new
            }
            nodes[Int(state)].matchLength = Int32(secret.utf8.count)
            nodes[Int(state)].matchSecret = Int32(replacements.count)
            replacements.append(replacement)
        }

        /// The child of `state` by `byte`, if there is one.
        func child(_ state: Int32, _ byte: UInt8) -> Int32? {
            if state == 0 {
                let c = rootChildren[Int(byte)]
                return c < 0 ? nil : c
            }
            var c = nodes[Int(state)].firstChild
            while c >= 0 {
                if nodes[Int(c)].label == byte { return c }
                c = nodes[Int(c)].sibling
            }
            return nil
        }

        /// The failure link of `state` (read while scrubbing).
        func fail(_ state: Int32) -> Int32 { nodes[Int(state)].fail }

        /// Breadth first: each state's failure link and its longest secret suffix.
        mutating func linkFailures() {
            var queue: [Int32] = rootChildren.filter { $0 >= 0 }
            queue.reserveCapacity(nodes.count)
            var head = 0
            while head < queue.count {
                let state = queue[head]
                head += 1
                var c = nodes[Int(state)].firstChild
                while c >= 0 {
                    let byte = nodes[Int(c)].label
                    var f = nodes[Int(state)].fail
                    while f != 0 && child(f, byte) == nil { f = nodes[Int(f)].fail }
                    let target = child(f, byte) ?? 0
                    let link = target == c ? 0 : target
                    nodes[Int(c)].fail = link
                    if nodes[Int(c)].matchLength == 0 {
                        nodes[Int(c)].matchLength = nodes[Int(link)].matchLength
                        nodes[Int(c)].matchSecret = nodes[Int(link)].matchSecret
                    }
                    queue.append(c)
                    c = nodes[Int(c)].sibling
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
                while state != 0 && trie.child(state, byte) == nil { state = trie.fail(state) }
                state = trie.child(state, byte) ?? 0
                let node = trie.nodes[Int(state)]
                if node.matchLength > 0 { add(Region(start: i - Int(node.matchLength) + 1, end: i, secret: node.matchSecret)) }
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
