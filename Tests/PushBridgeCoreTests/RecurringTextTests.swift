import Testing
@testable import PushBridgeCore

/// ``RecurringText`` shares the `String` of a sentence made before with the same bytes
/// (``SentenceCache``, issue 31, branch `translate6`): every sentence must still be the text
/// ``MessageText`` makes of the same pieces (the oracle), byte for byte, whatever the cache
/// held before it: names of one length differing in one byte (the sentences the cache must not
/// confuse), non-ASCII and combining marks, empty names, sentences past the inline room and past
/// the longest one kept, in an order that makes slots be replaced and found again.
struct RecurringTextTests {
    /// Names of 12 bytes that differ in one byte at each position, and others.
    static let names: [String] = {
        var out: [String] = []
        let base = Array("seg_01hq8n4t".utf8)
        for i in base.indices {
            for b in [UInt8(ascii: "a"), UInt8(ascii: "Z"), UInt8(ascii: "9")] where base[i] != b {
                var v = base
                v[i] = b
                out.append(String(decoding: v, as: UTF8.self))
            }
        }
        return out + ["", "seg_01hq8n4t", "café", "e\u{301}", "👨‍🍳 chefs", "—", "VIP \"gold\"", #"a\b"#,
                      String(repeating: "long-name-", count: 30), String(repeating: "é", count: 600)]
    }()

    /// The two caveats that use it, and a short and a plain sentence, for one name.
    static func sentences(_ name: String, _ n: Int, oracle: Bool) -> [String] {
        if oracle {
            return [MessageText("no segment map is configured for this app, so the OneSignal segment \"\(name)\" was sent as the OpenPush segment id — add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map").text,
                    MessageText("OpenPush reaches at most \(n) devices per send: if segment \(quoted: [name, name], separator: ", ") holds more").text,
                    MessageText("\(name)").text, MessageText("lists \(n) target ids").text]
        }
        return [RecurringText("no segment map is configured for this app, so the OneSignal segment \"\(name)\" was sent as the OpenPush segment id — add \"\(name)\": \"<OpenPush segment id>\" to the app's segment_map").text,
                RecurringText("OpenPush reaches at most \(n) devices per send: if segment \(quoted: [name, name], separator: ", ") holds more").text,
                RecurringText("\(name)").text, RecurringText("lists \(n) target ids").text]
    }

    @Test func aRecurringSentenceIsTheMessageTextsBytes() {
        var g = RedactionOverBytesGeneratedTests.Generator(state: 31)
        var checked = 0
        for _ in 0..<6_000 {
            let name = g.pick(Self.names)
            let n = g.next(3) * 1_000
            let made = Self.sentences(name, n, oracle: false)
            let expected = Self.sentences(name, n, oracle: true)
            for (a, b) in zip(made, expected) where Array(a.utf8) != Array(b.utf8) {
                Issue.record("\(a) instead of \(b)")
            }
            checked += made.count
        }
        #expect(checked == 24_000)
    }

    /// A sentence made twice shares its first `String`'s bytes (the cache is used), and one
    /// longer than ``SentenceCache/longest`` is made each time.
    @Test func aRepeatedSentenceSharesItsText() {
        let name = "seg_shared_\(UInt64.random(in: 0...UInt64.max))"
        let first = RecurringText("the segment \"\(name)\" was sent as is — \(name)").text
        let second = RecurringText("the segment \"\(name)\" was sent as is — \(name)").text
        let a = first.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        let b = second.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        #expect(a != nil && a == b)
        let long = String(repeating: "x", count: SentenceCache.longest)
        let l1 = RecurringText("\(long)!").text
        let l2 = RecurringText("\(long)!").text
        #expect(l1 == l2)
        #expect(l1.utf8.withContiguousStorageIfAvailable { $0.baseAddress } != l2.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
    }

    /// Many threads making and finding sentences at once get their own sentence's bytes.
    @Test func concurrentSentencesAreTheirOwn() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var g = RedactionOverBytesGeneratedTests.Generator(state: UInt64(t))
                    var bad = 0
                    for _ in 0..<1_500 {
                        let name = g.pick(Self.names)
                        let n = g.next(3) * 1_000
                        if Self.sentences(name, n, oracle: false).map({ Array($0.utf8) }) != Self.sentences(name, n, oracle: true).map({ Array($0.utf8) }) { bad += 1 }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
