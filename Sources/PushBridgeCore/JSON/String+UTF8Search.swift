extension String {
    /// Whether the text's UTF-8 holds `byte`: one scan of the contiguous bytes of a native
    /// string (the generic `utf8.contains` walks the view through its index protocol, which
    /// the request path paid for every body string, key and path it checked).
    public func containsUTF8(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ $0.contains(byte) }) { return found }
        return utf8.contains(byte)
    }
}

extension Substring {
    /// ``Swift/String/containsUTF8(_:)`` of a slice.
    public func containsUTF8(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ $0.contains(byte) }) { return found }
        return utf8.contains(byte)
    }
}
