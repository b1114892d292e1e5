/// The OpenPush body written straight into bytes (issue 31 item 1): the same bytes as
/// `JSONWriter.bytes(.object(body))`, without building the body's `JSONObject` first.
extension OpenPushRequest {
    /// The room a body's array is made with before its bytes are written: a OneSignal start's
    /// body is about 450 bytes, and 960 keeps the array's block within glibc's per-thread cache
    /// (blocks up to 1,032 bytes; branch `translate` found 1,024 slower on updates).
    static let bodyRoom = 960

    /// The JSON body's bytes, compact, in OpenPush's documented field order. Written once into
    /// an array of ``bodyRoom`` bytes through a cursor that also counts (issue 31, branch
    /// `lazyparse`: the counting pass before the write was a third of the body's cost); a body
    /// that does not fit is written again into an array of exactly its counted size.
    public var bodyBytes: [UInt8] {
        var needed = 0
        let fitted = [UInt8](unsafeUninitializedCapacity: Self.bodyRoom) { buffer, initialized in
            var cursor = JSONFittingCursor(buffer)
            writeBody(to: &cursor)
            if cursor.fits { initialized = cursor.count } else { needed = cursor.count }
        }
        guard needed > 0 else { return fitted }
        return [UInt8](unsafeUninitializedCapacity: needed) { buffer, initialized in
            var cursor = JSONRawCursor(buffer)
            writeBody(to: &cursor)
            precondition(cursor.written == needed, "OpenPush body wrote \(cursor.written) bytes, counted \(needed)")
            initialized = needed
        }
    }

    /// Puts the body's bytes into a sink.
    func writeBody<Sink: JSONByteSink>(to out: inout Sink) {
        switch payload {
        case .start(let s): s.writeBody(to: &out)
        case .update(let u): u.writeBody(to: &out)
        }
    }
}

/// Writes one object's members in order: `{`, then `"key":value` separated by commas, `}`.
struct BodyBytesWriter<Sink: JSONByteSink> {
    /// The sink written so far.
    var out: Sink
    /// Whether the next member needs a comma before it.
    private var first = true

    /// A writer that takes `out` (leaving it empty-handed until ``finish()`` gives it back)
    /// and starts the object.
    init(taking out: Sink) {
        self.out = out
        self.out.put(UInt8(ascii: "{"))
    }

    /// Appends a member's key and colon, after a comma unless it is the first.
    private mutating func key(_ key: StaticString) {
        if !first { out.put(UInt8(ascii: ",")) }
        first = false
        out.put(UInt8(ascii: "\""))
        JSONWriter.putStatic(key, to: &out)
        out.put(UInt8(ascii: "\""))
        out.put(UInt8(ascii: ":"))
    }

    /// Appends a member.
    mutating func member(_ key: StaticString, _ value: JSONValue) {
        self.key(key)
        JSONWriter.write(value, to: &out)
    }

    /// Appends a string member.
    mutating func member(_ key: StaticString, string value: String) {
        self.key(key)
        JSONWriter.writeString(value, to: &out)
    }

    /// Appends a member whose value is a list of strings.
    mutating func member(_ key: StaticString, strings: [String]) {
        self.key(key)
        out.put(UInt8(ascii: "["))
        for (i, s) in strings.enumerated() {
            if i > 0 { out.put(UInt8(ascii: ",")) }
            JSONWriter.writeString(s, to: &out)
        }
        out.put(UInt8(ascii: "]"))
    }

    /// Appends an integer member, its digits written without a `String`.
    mutating func member(_ key: StaticString, int value: Int64) {
        self.key(key)
        JSONWriter.putDigits(value, to: &out)
    }

    /// Appends the members starts and updates end alike, in OpenPush's order: `stale_date`,
    /// `dismissal_date`, `priority`, `ios_relevance_score`, `ios_sound`, `sound` (those set).
    mutating func timingAndSound(staleDate: Int64?, dismissalDate: Int64?, priority: Int64?, relevanceScore: JSONNumber?, iosSound: String?, sound: String?) {
        if let staleDate { member("stale_date", int: staleDate) }
        if let dismissalDate { member("dismissal_date", int: dismissalDate) }
        if let priority { member("priority", int: priority) }
        if let relevanceScore { member("ios_relevance_score", .number(relevanceScore)) }
        if let iosSound { member("ios_sound", string: iosSound) }
        if let sound { member("sound", string: sound) }
    }

    /// Ends the object and gives the bytes.
    consuming func finish() -> Sink {
        out.put(UInt8(ascii: "}"))
        return out
    }
}

extension OpenPushStart {
    /// Appends ``body``'s bytes to an array (the redaction's copy of the body writes through this).
    func writeBody(into out: inout [UInt8]) { writeBody(to: &out) }

    /// Puts ``body``'s bytes (the same fields in the same order).
    func writeBody<Sink: JSONByteSink>(to out: inout Sink) {
        var w = BodyBytesWriter(taking: consume out)
        if let event { w.member("event", string: event) }
        if let activityId { w.member("activity_id", string: activityId) }
        if let name { w.member("name", string: name) }
        if let eventAttributes { w.member("event_attributes", .object(eventAttributes)) }
        if let eventUpdates { w.member("event_updates", .object(eventUpdates)) }
        if let headings { w.member("headings", .object(headings)) }
        if let contents { w.member("contents", .object(contents)) }
        if let includeAliases { w.member("include_aliases", .object(includeAliases)) }
        if let includeSubscriptionIds { w.member("include_subscription_ids", strings: includeSubscriptionIds) }
        if let includedSegments { w.member("included_segments", strings: includedSegments) }
        if let excludedSegments { w.member("excluded_segments", strings: excludedSegments) }
        if let filters { w.member("filters", .array(filters)) }
        w.timingAndSound(staleDate: staleDate, dismissalDate: dismissalDate, priority: priority, relevanceScore: relevanceScore, iosSound: iosSound, sound: sound)
        if let idempotencyKey { w.member("idempotency_key", string: idempotencyKey) }
        out = w.finish()
    }
}

extension OpenPushUpdate {
    /// Appends ``body``'s bytes to an array (the redaction's copy of the body writes through this).
    func writeBody(into out: inout [UInt8]) { writeBody(to: &out) }

    /// Puts ``body``'s bytes (the same fields in the same order).
    func writeBody<Sink: JSONByteSink>(to out: inout Sink) {
        var w = BodyBytesWriter(taking: consume out)
        if let event { w.member("event", string: event) }
        if let name { w.member("name", string: name) }
        if let eventUpdates { w.member("event_updates", .object(eventUpdates)) }
        if let headings { w.member("headings", .object(headings)) }
        if let contents { w.member("contents", .object(contents)) }
        w.timingAndSound(staleDate: staleDate, dismissalDate: dismissalDate, priority: priority, relevanceScore: relevanceScore, iosSound: iosSound, sound: sound)
        out = w.finish()
    }
}
