import PushBridgeCore

/// The one way every command and the admin endpoint read a time (`--since`, `--until`,
/// `?since=`): an ISO 8601 date (`2026-06-10`, midnight UTC), an ISO 8601 date-time
/// (`2026-06-10T12:00:00Z`, `2026-06-10T12:00` read as UTC, an offset or a fraction
/// allowed), Unix seconds (`1781049600`) or Unix milliseconds (`1781049600000`: any number
/// from 10^11 on, which as seconds would be past the year 5000).
public enum TimeArgument {
    /// What a usage error says the value may be.
    public static let accepted = "an ISO 8601 date (2026-06-10) or date-time (2026-06-10T12:00:00Z), Unix seconds or Unix milliseconds"

    /// The time as Unix milliseconds, nil when the text is none of the accepted forms.
    public static func milliseconds(_ text: String) -> Int64? {
        if let number = Int64(text) {
            guard number >= 0 else { return nil }
            return number >= 100_000_000_000 ? number : number * 1000
        }
        if text.count == 10, let seconds = TimestampConversion.unixSeconds(iso: text + "T00:00:00Z") { return seconds * 1000 }
        if let seconds = TimestampConversion.unixSeconds(iso: text) { return seconds * 1000 }
        // A date-time without a zone is UTC, with or without its seconds.
        for suffix in ["Z", ":00Z"] where text.count >= 16 && !text.hasSuffix("Z") {
            if let seconds = TimestampConversion.unixSeconds(iso: text + suffix) { return seconds * 1000 }
        }
        return nil
    }
}
