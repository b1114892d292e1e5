#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Synchronization

/// The warning log: structured lines, one per event, in `logfmt` or JSON lines, on stderr or
/// an injected sink. Each line starts with `ts` (RFC 3339 UTC, milliseconds), `level` and
/// `msg`; fields follow in the order given.
///
/// Secret-named fields (see ``LogRedaction``) are always written as fingerprints. Lines never
/// interleave: each is handed to the sink whole, under a lock, and the stderr sink writes it
/// with as few `write(2)` calls as the kernel allows (one, in practice).
public final class EventLog: Sendable {
    /// Receives one or more complete lines, each ending in `\n` (the lines of one event
    /// batch, such as a translation's findings, come in one call). Calls are serialized by
    /// the log.
    public typealias Sink = @Sendable (String) -> Void

    /// The format lines are written in.
    public let format: ProxyConfiguration.LogFormat
    /// Events below this level are skipped.
    public let minimumLevel: LogLevel

    /// Bounds the lines translation findings make (see ``findings(_:requestId:dialect:app:route:)``).
    public let findingLimiter: FindingLogLimiter

    let encoder: LogLineEncoder
    private let sink: Sink
    let clock: @Sendable () -> Int64
    private let writeLock = Mutex(())

    /// A log writing to `sink` (stderr by default). `clock` gives milliseconds since the Unix
    /// epoch; string values longer than `maxValueBytes` are cut and marked `…[truncated]`.
    public init(
        format: ProxyConfiguration.LogFormat = .logfmt,
        minimumLevel: LogLevel = .info,
        maxValueBytes: Int = 8192,
        clock: @escaping @Sendable () -> Int64 = RFC3339.nowMilliseconds,
        findingLimiter: FindingLogLimiter = FindingLogLimiter(),
        sink: @escaping Sink = EventLog.standardError
    ) {
        self.findingLimiter = findingLimiter
        self.format = format
        self.minimumLevel = minimumLevel
        self.encoder = LogLineEncoder(format: format, maxValueBytes: max(16, maxValueBytes))
        self.clock = clock
        self.sink = sink
    }

    /// Whether events at `level` are written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// Writes one line for an event, unless `level` is below ``minimumLevel``.
    public func log(_ level: LogLevel, _ message: String, _ fields: [LogField]) {
        guard isEnabled(level) else { return }
        let line = encoder.encode(milliseconds: clock(), level: level, message: message, fields: Self.redacted(fields))
        writeLock.withLock { _ in sink(line) }
    }

    /// Writes one line for an event from fields wherever they are (a caller's stack: no array
    /// per line), unless `level` is below ``minimumLevel``. Secret-named fields are redacted as
    /// the array form does. With `keys` (the fields' keys, in order, checked once), plain
    /// keys are neither looked up for redaction nor checked again (issue 31).
    func log(_ level: LogLevel, _ message: String, _ fields: UnsafeBufferPointer<LogField>, keys: LogLineKeys? = nil) {
        guard isEnabled(level) else { return }
        assert(keys.map { $0.match(fields) } ?? true, "fields other than their keys")
        let plain = keys?.plain ?? false
        if !plain, fields.contains(where: { LogRedaction.isSecret(key: $0.key) }) { return log(level, message, Array(fields)) }
        let line = encoder.encode(milliseconds: clock(), level: level, message: message, fields: fields, plainKeys: plain)
        writeLock.withLock { _ in sink(line) }
    }

    /// `fields` with each secret-named one redacted (``LogRedaction/redact(_:)``): the same
    /// array, not a copy, when none is (every line PushBridge writes per request).
    static func redacted(_ fields: [LogField]) -> [LogField] {
        var redacted = fields
        for index in redacted.indices where LogRedaction.isSecret(key: redacted[index].key) {
            redacted[index] = LogRedaction.redact(redacted[index])
        }
        return redacted
    }

    /// Writes one line per event, all handed to the sink in one call (one `write(2)` on
    /// stderr), unless `level` is below ``minimumLevel``.
    public func log(_ level: LogLevel, _ message: String, batch: [[LogField]]) {
        guard isEnabled(level), !batch.isEmpty else { return }
        let timestamp = RFC3339.format(milliseconds: clock())
        var text = ""
        for fields in batch {
            text += encoder.encode(timestamp: timestamp, level: level, message: message, fields: Self.redacted(fields))
        }
        writeLock.withLock { _ in sink(text) }
    }

    /// Writes one line per event, each at its own level (lines below ``minimumLevel`` are
    /// skipped), all handed to the sink in one call, in the order given.
    public func log(_ message: String, leveled batch: [(LogLevel, [LogField])]) {
        // No line to write (a request's finding lines all held back, or below the level): no
        // clock read and no timestamp made (an allocation per such request).
        guard batch.contains(where: { isEnabled($0.0) }) else { return }
        let timestamp = RFC3339.format(milliseconds: clock())
        var text = ""
        for (level, fields) in batch where isEnabled(level) {
            text += encoder.encode(timestamp: timestamp, level: level, message: message, fields: Self.redacted(fields))
        }
        guard !text.isEmpty else { return }
        hand(text)
    }

    /// Hands `text` (whole lines) to the sink, under the lock.
    func hand(_ text: String) {
        writeLock.withLock { _ in sink(text) }
    }

    /// Writes one line for an event: `log.log(.info, "started", ["port": 8080])`.
    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        guard isEnabled(level) else { return }
        log(level, message, fields.map { LogField($0.key, $0.value) })
    }

    /// A debug line.
    public func debug(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.debug, message, fields) }
    /// An info line.
    public func info(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.info, message, fields) }
    /// A warning line.
    public func warning(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.warning, message, fields) }
    /// An error line.
    public func error(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.error, message, fields) }

    /// Writes each line to file descriptor 2 (see ``fileDescriptor(_:)``).
    public static let standardError: Sink = fileDescriptor(2)

    /// A sink writing each line to `fd` with one `write(2)`, retrying on `EINTR` and short
    /// writes. Errors are dropped: the log must never stop the proxy.
    public static func fileDescriptor(_ fd: Int32) -> Sink {
        { line in
            var line = line
            line.withUTF8 { buffer in
                guard var base = buffer.baseAddress else { return }
                var remaining = buffer.count
                while remaining > 0 {
                    let n = write(fd, base, remaining)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    base += n
                    remaining -= n
                }
            }
        }
    }
}
