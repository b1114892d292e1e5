import PushBridgeCore

/// An answer the server makes itself, without (or instead of) the handler.
public enum HTTPServerFailure: Sendable, Equatable {
    /// The request body passed ``HTTPServerConfiguration/maxBodyBytes`` (`limit`); the handler
    /// did not run. The request passed to the responder has no body.
    case bodyTooLarge(limit: Int)
    /// The request head breaks a framing, character, coding or size rule (``HTTPHeadRules``):
    /// `field` names the part of the head, `rule` what it broke, `status` the answer's status
    /// (400; 501 for a transfer coding, 415 for a content coding the server does not handle;
    /// 431 for a head, 414 for a target over its limit). The handler did not run; the
    /// connection is closed.
    case malformedHead(field: String, rule: String, status: Int = 400)
    /// libmicrohttpd refused the request itself and sent its own answer (an HTML page, with
    /// `status`) before the handler could: a head too large for its memory pool or that it
    /// could not parse (``LibraryRefusal/head``), or a malformed chunked body
    /// (``LibraryRefusal/body``). Nothing is answered through the responder; the refusal is
    /// only recorded.
    case refusedByLibrary(LibraryRefusal, status: Int)
    /// The handler ran past ``HTTPServerConfiguration/handlerDeadline``.
    case handlerDeadlineExceeded(Duration)
    /// The server is stopping and did not run the handler (the request's body completed
    /// while it drained).
    case shuttingDown
    /// The server stopped before a running handler answered (past the grace period). With an
    /// exit the server claims the request's ticket, as at a deadline: the exit completes the
    /// handler's row with this answer, and the handler only adds how it ended.
    case stoppedBeforeAnswer

    /// Where in a request libmicrohttpd refused it on its own.
    public enum LibraryRefusal: Sendable, Equatable {
        /// In the head, before the handler saw it: a head larger than
        /// ``HTTPServerConfiguration/headerMemoryBytes`` (libmicrohttpd's 431) or a header
        /// line it could not parse, such as a bad `Content-Length` (its 400).
        case head
        /// In a chunked body: a chunk size that is not hexadecimal (its 400) or past 64 bits
        /// (its 413).
        case body
        /// In the request line, before any request existed: a line longer than
        /// ``HTTPServerConfiguration/headerMemoryBytes`` (its 414), an HTTP version other than
        /// 1.0 and 1.1 such as HTTP/2 prior knowledge (its 505), or a malformed line (its 400).
        /// libmicrohttpd reports neither the line nor the status: only that it answered.
        case requestLine
    }

    /// The HTTP status this failure is answered with: 413, 400 (or the head rule's status),
    /// 504 or 503; for a refusal libmicrohttpd answered itself, the status it sent (0 when it
    /// does not say: ``LibraryRefusal/requestLine``).
    public var status: Int {
        switch self {
        case .bodyTooLarge: 413
        case .malformedHead(_, _, let status): status
        case .refusedByLibrary(_, let status): status
        case .handlerDeadlineExceeded: 504
        case .shuttingDown, .stoppedBeforeAnswer: 503
        }
    }

    /// A one-line description for the caller.
    public var message: String {
        switch self {
        case .bodyTooLarge(let limit): "request body is larger than the limit of \(limit) bytes"
        case .malformedHead(let field, let rule, _): "\(field): \(rule)"
        case .refusedByLibrary(.head, 431):
            "the request head is larger than the server's header memory; libmicrohttpd refused it with its own 431"
        case .refusedByLibrary(.head, let status):
            "the request head has a line libmicrohttpd could not parse; it refused it with its own \(status)"
        case .refusedByLibrary(.requestLine, _):
            "libmicrohttpd refused the request line itself and sent its own answer (414 for a line too long, 505 for an HTTP version other than 1.0 and 1.1 such as HTTP/2 prior knowledge, 400 for a malformed line)"
        case .refusedByLibrary(.body, let status):
            "the chunked body has a chunk size that is not hexadecimal or is too large; libmicrohttpd refused it with its own \(status)"
        case .handlerDeadlineExceeded(let deadline): "the request did not finish within \(deadline)"
        case .shuttingDown: "the server is shutting down"
        case .stoppedBeforeAnswer: "the server stopped before the answer was ready"
        }
    }

    /// The default rendering: ``status`` with `{"errors":["<message>"]}`.
    public static func jsonResponse(_ failure: HTTPServerFailure, for request: HTTPRequest) -> HTTPResponse {
        .json(failure.status, .object(["errors": .array([.string(failure.message)])]))
    }
}
