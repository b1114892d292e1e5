/// How long PushBridge can take to answer a request, and what a front proxy must wait.
///
/// Every handler is held to one deadline (``handlerDeadline``): the longest paced wait
/// (`delivery.max_wait_ms`), every attempt's upstream timeout (`limits.upstream_timeout_ms`
/// × `delivery.max_attempts`) and the backoffs between them (`delivery.backoff_max_ms` ×
/// the retries), plus ``handlerSlack`` for the audit's writes. Past it PushBridge answers
/// itself. A front proxy (nginx's `proxy_read_timeout`, a load balancer's idle timeout) that
/// gives up sooner answers `504` while PushBridge may still forward the request, and the
/// caller's retry would then send it twice: it must wait longer (``frontProxyReadTimeoutSeconds``).
extension ProxyConfiguration {
    /// Added to the sending budget: the audit's writes before and after the send.
    public static let handlerSlack: Duration = .seconds(2)

    /// The longest a request's handler runs before PushBridge answers it.
    public var handlerDeadline: Duration {
        OpenPushDelivery.requestBudget(delivery, upstreamTimeout: limits.upstreamTimeout) + Self.handlerSlack
    }

    /// A front proxy's read timeout that outlasts ``handlerDeadline``: at least 5 s more,
    /// rounded up to whole 10 s.
    public var frontProxyReadTimeoutSeconds: Int64 {
        let seconds = (handlerDeadline + .seconds(5)).components.seconds + 1
        return (seconds + 9) / 10 * 10
    }

    /// The sum for people: `101 s = delivery.max_wait_ms 65 s + 3 × limits.upstream_timeout_ms 10 s + …`.
    public var handlerDeadlineExplanation: String {
        let d = delivery, retries = Int64(max(d.maxAttempts - 1, 0))
        let timeout = limits.upstreamTimeout.components
        let timeoutMs = timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000
        return "\(Self.seconds(handlerDeadline)) = delivery.max_wait_ms \(Self.seconds(.milliseconds(d.maxWaitMs)))"
            + " + \(d.maxAttempts) × limits.upstream_timeout_ms \(Self.seconds(.milliseconds(timeoutMs)))"
            + " + \(retries) × delivery.backoff_max_ms \(Self.seconds(.milliseconds(d.backoffMaxMs)))"
            + " + \(Self.seconds(Self.handlerSlack)) for the audit"
    }

    /// `101 s`, `0.5 s`.
    private static func seconds(_ duration: Duration) -> String {
        let c = duration.components
        let ms = c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}
