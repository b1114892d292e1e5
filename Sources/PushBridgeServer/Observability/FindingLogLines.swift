/// One request's translation finding lines, each encoded as it is added (its fields on the
/// stack: no array per line nor a batch of them, issue 31) into one text the log's sink gets in
/// one call (``flush()``). Lines below the log's minimum level are skipped; every line has the
/// `ts` of one clock read, made when the first line is written (none when none is).
struct FindingLogLines {
    private let log: EventLog
    private let requestId: String, dialect: String, app: String, route: String
    /// The clock read every line's `ts` gives, once one line is written.
    private var milliseconds: Int64?
    /// The formatted `ts` the JSON lines share (logfmt lines write it from the stack).
    private var timestamp: String?
    /// The lines so far.
    private var text = ""

    /// No lines yet, for the request `requestId` in `dialect` for `app` by `route`.
    init(log: EventLog, requestId: String, dialect: String, app: String, route: String) {
        (self.log, self.requestId, self.dialect, self.app, self.route) = (log, requestId, dialect, app, route)
    }

    /// Adds the line of one finding at `level`: `request_id`, `dialect`, `app`, `route`,
    /// `field`, `kind`, `severity` and `reason`; nothing when `level` is below the log's.
    mutating func add(_ level: LogLevel, field: String, kind: String, severity: String, reason: String) {
        guard log.isEnabled(level) else { return }
        let now = milliseconds ?? log.clock()
        milliseconds = now
        if log.encoder.format == .json, timestamp == nil { timestamp = RFC3339.format(milliseconds: now) }
        let line = withUnsafeTemporaryAllocation(of: LogField.self, capacity: 8) { room -> String in
            guard let base = room.baseAddress else { return "" }
            base.initialize(to: LogField("request_id", .string(requestId)))
            (base + 1).initialize(to: LogField("dialect", .string(dialect)))
            (base + 2).initialize(to: LogField("app", .string(app)))
            (base + 3).initialize(to: LogField("route", .string(route)))
            (base + 4).initialize(to: LogField("field", .string(field)))
            (base + 5).initialize(to: LogField("kind", .string(kind)))
            (base + 6).initialize(to: LogField("severity", .string(severity)))
            (base + 7).initialize(to: LogField("reason", .string(reason)))
            defer { base.deinitialize(count: 8) }
            return encode(level, UnsafeBufferPointer(start: base, count: 8))
        }
        text += line
    }

    /// The line of `fields` (the finding keys, in order) at `level`.
    private func encode(_ level: LogLevel, _ fields: UnsafeBufferPointer<LogField>) -> String {
        let keys = EventLog.findingKeys
        assert(keys.match(fields), "fields other than the finding keys")
        guard keys.plain else {
            // Never for the keys as they are; kept so that a secret-named key is still redacted.
            return encode(level, EventLog.redacted(Array(fields)), plainKeys: false)
        }
        return encode(level, fields, plainKeys: true)
    }

    private func encode<Fields: Collection<LogField>>(_ level: LogLevel, _ fields: Fields, plainKeys: Bool) -> String {
        let message = "translation finding"
        if let timestamp { return log.encoder.encode(timestamp: timestamp, level: level, message: message, fields: fields, plainKeys: plainKeys) }
        return log.encoder.encode(milliseconds: milliseconds ?? 0, level: level, message: message, fields: fields, plainKeys: plainKeys)
    }

    /// Hands the lines to the log's sink in one call (one `write(2)` on stderr); nothing when
    /// there are none.
    func flush() {
        guard !text.isEmpty else { return }
        log.hand(text)
    }
}
