extension Redaction {
    /// ``isSecretKey(_:dialect:)`` of an ASCII key given as its bytes, with no `String` made
    /// and nothing hashed: the key is normalized from its end into a few bytes on the stack
    /// (lower case, separators dropped) and compared with the secret names and endings.
    /// Only for ASCII: lower-casing other letters can make ASCII ones (`K`, the Kelvin sign).
    static func isSecretKey(ascii key: UnsafeBufferPointer<UInt8>, dialect: DialectName?) -> Bool {
        if key.count < 3 { return false }
        // Most keys end in a letter no secret word ends in.
        var last = key.count - 1
        while last > 0, key[last] == 0x5F || key[last] == 0x2D || key[last] == 0x2E || key[last] == 0x20 { last -= 1 }
        let letter = key[last] >= UInt8(ascii: "A") && key[last] <= UInt8(ascii: "Z") ? key[last] + 32 : key[last]
        if !secretEndings[Int(letter)] { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: KeyWords.tailCapacity) { tail -> Bool in
            // The last normalized bytes, last first; `length` counts all of them.
            var kept = 0, length = 0
            // Index loops, not iterators: an unspecialized (debug) iterator allocates per element.
            var k = key.count
            while k > 0 {
                k -= 1
                let b = key[k]
                if b == 0x5F || b == 0x2D || b == 0x2E || b == 0x20 { continue }
                if kept < KeyWords.tailCapacity {
                    tail[kept] = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
                    kept += 1
                }
                length += 1
            }
            func endsWith(_ word: [UInt8]) -> Bool {
                guard kept >= word.count else { return false }
                for i in 0..<word.count where tail[i] != word[word.count - 1 - i] { return false }
                return true
            }
            let names = KeyWords.names, suffixes = KeyWords.suffixes
            for w in 0..<names.count where length == names[w].count && endsWith(names[w]) { return true }
            for w in 0..<suffixes.count where endsWith(suffixes[w]) { return true }
            return dialect == .pushwoosh && length == 7 && endsWith(KeyWords.devices)
        }
    }

    /// The words ``isSecretKey(ascii:dialect:)`` compares with, as bytes.
    private enum KeyWords {
        static let names: [[UInt8]] = secretNames.map { Array($0.utf8) }
        static let suffixes: [[UInt8]] = secretSuffixes.map { Array($0.utf8) }
        static let devices: [UInt8] = Array("devices".utf8)
        /// Enough for the longest word.
        static let tailCapacity = (names + suffixes + [devices]).map(\.count).max() ?? 16
    }
}
