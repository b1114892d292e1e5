/// Why an upstream call produced no complete answer.
public struct UpstreamFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The class of failure. `connectFailed` always means nothing was sent; for the others,
    /// `provablyNotSent` says so when it is certain. Retry an update only when it is true.
    public enum Kind: String, Sendable, Equatable {
        /// Could not connect (refused, unresolvable, connect timeout, TLS handshake failure):
        /// not one byte of the request was written to a socket.
        case connectFailed = "connect_failed"
        /// The deadline passed after the request may have been sent.
        case timedOut = "timed_out"
        /// The connection broke after the request may have been sent (reset, closed early,
        /// truncated body, empty reply).
        case reset
        /// The answer was larger than `maxResponseBytes`; the transfer was aborted.
        case responseTooLarge = "response_too_large"
        /// The client was shut down before the call completed.
        case shutDown = "shut_down"
        /// Anything else curl reported (bad URL, TLS verification after connect, …).
        case other
    }

    /// The class of failure.
    public var kind: Kind
    /// curl's own message (never contains request headers or the body).
    public var message: String
    /// curl's `CURLcode`, when curl produced one.
    public var curlCode: Int?
    /// Whether it is certain that no byte of the request reached a socket.
    public var provablyNotSent: Bool
    /// Time from `send` to the failure.
    public var latency: Duration

    /// A failure.
    public init(kind: Kind, message: String, curlCode: Int? = nil, provablyNotSent: Bool, latency: Duration = .zero) {
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
        self.provablyNotSent = provablyNotSent
        self.latency = latency
    }

    /// `kind: message`, curl's text included: for the log only, since curl names the
    /// upstream's address and port ("Failed to connect to 127.0.0.1 port 19500").
    public var description: String { "\(kind.rawValue): \(message)" }

    /// The kind and curl's code without curl's text (`connect_failed (curl 7)`): what the
    /// audit keeps and what may reach a caller.
    public var summary: String { curlCode.map { "\(kind.rawValue) (curl \($0))" } ?? kind.rawValue }
}
