import PushBridgeCore

/// The sweep PushBridge used before the one-pass scrubber, kept only as this benchmark's
/// reference: each secret (longest first) searched for in the text by a naive byte scan, so
/// the cost is secrets × text × match length.
enum ReferenceSweep {
    static func sweep(_ text: String, secrets: Set<String>, fingerprint: (String) -> String) -> String {
        let ordered = secrets.filter { $0.utf8.count >= Redaction.minimumSweepLength }.sorted { $0.utf8.count > $1.utf8.count }
        var bytes = Array(text.utf8)
        for secret in ordered {
            let needle = Array(secret.utf8)
            guard firstMatch(needle, in: bytes[...]) != nil else { continue }
            var out: [UInt8] = []
            var rest = bytes[...]
            while let at = firstMatch(needle, in: rest) {
                out.append(contentsOf: rest[rest.startIndex..<at])
                out.append(contentsOf: fingerprint(secret).utf8)
                rest = rest[(at + needle.count)...]
            }
            out.append(contentsOf: rest)
            bytes = out
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func firstMatch(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = haystack.startIndex
        while i <= haystack.endIndex - needle.count {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
