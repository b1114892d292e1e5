/// OpenPush's documented answers that mean "this phone is not on OpenPush yet" rather than
/// a failure: a start whose audience has no push-to-start token there (400 "no device has
/// registered a push-to-start token"), and an update or end of an activity OpenPush never
/// opened (404 "no live activity with that id is open"). Counted apart from errors as
/// population gaps (``AuditOutcome/notOnOpenPush``) wherever a figure is shown: `/metrics`,
/// the report's shadow comparison, readiness and its reach.
public enum PopulationGap {
    /// The words of OpenPush's 400 to a start no device in the audience can take.
    public static let noPushToStartToken = "no device has registered a push-to-start token"
    /// The words of OpenPush's 404 to an update or end of an activity it does not hold.
    public static let noOpenActivity = "no live activity with that id is open"

    /// Whether OpenPush's answer `status` with `body` is one of its two population-gap answers.
    public static func isOpenPushGap(status: Int?, body: String?) -> Bool {
        guard let status, let body else { return false }
        switch status {
        case 400: return body.contains(noPushToStartToken)
        case 404: return body.contains(noOpenActivity)
        default: return false
        }
    }

    /// The same test in SQL over a shadow comparison's side (`s.primary_…` or `s.shadow_…`):
    /// that side is OpenPush and answered one of the two gap answers (the module's own SQL:
    /// the phrases hold no quote).
    static func sql(side: String) -> String {
        "(s.\(side)_provider = 'openpush' AND s.\(side)_error IS NULL AND \(sql(status: "s.\(side)_status", body: "s.\(side)_body")))"
    }

    /// The test in SQL over an OpenPush answer's `status` and `body` columns.
    /// Never NULL: a missing status or body is no gap.
    static func sql(status: String, body: String) -> String {
        let status = "coalesce(\(status), 0)", body = "coalesce(\(body), '')"
        return "((\(status) = 400 AND \(body) LIKE '%\(noPushToStartToken)%') OR (\(status) = 404 AND \(body) LIKE '%\(noOpenActivity)%'))"
    }

    /// A shadow comparison whose one refusing side is OpenPush's population gap while the
    /// other side accepted: an expected disagreement, counted apart from a real one.
    static func expectedDisagreementSQL() -> String {
        "((\(accepted("primary")) = 1 AND \(sql(side: "shadow"))) OR (\(accepted("shadow")) = 1 AND \(sql(side: "primary"))))"
    }

    /// 1 when a comparison's `side` answered 2xx without an error, else 0.
    static func accepted(_ side: String) -> String {
        "(CASE WHEN s.\(side)_status BETWEEN 200 AND 299 AND s.\(side)_error IS NULL THEN 1 ELSE 0 END)"
    }
}
