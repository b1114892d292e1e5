// TimeZone only (IANA zone offsets for send_date). On Linux the Swift-native modules are
// imported rather than Foundation, whose NSString-bridged String overloads would otherwise be
// picked module-wide (e.g. `String.contains`) and slow every dialect's hot path.
#if canImport(FoundationEssentials) && canImport(FoundationInternationalization)
import FoundationEssentials
import FoundationInternationalization
#else
import Foundation
#endif

/// `send_date`/`timezone` on start: "YYYY-MM-DD HH:mm" (or "now"/absent), read in an IANA zone
/// (default UTC), allowed from one day past to 30 days ahead as Pushwoosh documents. OpenPush
/// cannot schedule, so a future time becomes the request's `sendAt` and PushBridge holds it.
enum PushwooshSchedule {
    /// The grace Pushwoosh allows for a send_date in the past.
    static let pastWindow: Int64 = 86_400
    /// How far ahead Pushwoosh accepts a send_date.
    static let futureWindow: Int64 = 30 * 86_400

    /// The send time for a notification, or nil to send now (or when a rule is broken).
    static func read(_ r: inout FieldReader, context: TranslationContext, scope: inout PushwooshScope) -> SendTime? {
        let text = r.string(.send_date), zoneName = r.string(.timezone)
        olderVariantOptions(&r, scheduled: text != nil && text != "now", scope: &scope)
        guard let text, text != "now" else {
            if zoneName != nil {
                let zf = scope.field("timezone")
                scope.note(zf, .dropped, "timezone only says how to read send_date, and this notification is sent now; it is not used")
            }
            return nil
        }
        let df = scope.field("send_date"), zf = scope.field("timezone")
        guard let civil = parse(text) else {
            scope.reject(df, "must be \"YYYY-MM-DD HH:mm\" (e.g. \"2026-06-16 16:00\") or \"now\"")
            return nil
        }
        var zoneId = "UTC"
        var zone: TimeZone?
        if let zoneName {
            guard let z = TimeZone(identifier: zoneName) else {
                scope.reject(zf, MessageText("\"\(zoneName)\" is not a known IANA time zone (for example \"Europe/Madrid\")").text)
                return nil
            }
            zone = z
            zoneId = zoneName
        }
        let wall = CivilTime.unixSeconds(year: civil.y, month: civil.mo, day: civil.d, hour: civil.h, minute: civil.mi, second: 0)
        let at = zone.map { utc(wall: wall, in: $0) } ?? wall
        if at < context.now - pastWindow {
            scope.reject(df, MessageText("\"\(text)\" (\(zoneId)) is more than 1 day in the past; Pushwoosh rejects it too").text)
            return nil
        }
        if at > context.now + futureWindow {
            scope.reject(df, MessageText("\"\(text)\" (\(zoneId)) is more than 30 days in the future; Pushwoosh rejects it too").text)
            return nil
        }
        if at <= context.now {
            scope.note(df, .caveat, MessageText("\"\(text)\" (\(zoneId)) has already passed but is within Pushwoosh's one-day grace, so the start is sent now").text, severity: .info)
            return nil
        }
        scope.note(df, .caveat, MessageText("OpenPush has no scheduling: PushBridge holds this start and sends it at \(iso(at)) (\"\(text)\" in \(zoneId)); until then it is not in OpenPush, and it is only sent if PushBridge is running at that time").text)
        return SendTime(unixSeconds: at, sendDate: text, timezone: zoneId)
    }

    /// The older variant's delivery options. `ignore_user_timezone: false` asks for send_date
    /// in each device's local time, which OpenPush cannot do: with a scheduled send_date it
    /// rejects the notification rather than send it at one instant; `true` is what PushBridge
    /// does anyway. `send_rate` does not apply to Live Activity pushes in Pushwoosh either.
    static func olderVariantOptions(_ r: inout FieldReader, scheduled: Bool, scope: inout PushwooshScope) {
        if let ignore = r.bool(.ignore_user_timezone), !ignore {
            let f = scope.field("ignore_user_timezone")
            if scheduled {
                scope.reject(f, "false asks for send_date in each device's local time zone, but OpenPush cannot send at each device's local time and PushBridge sends a notification at one instant; send one notification per time zone with timezone set, or set ignore_user_timezone to true")
            } else {
                scope.note(f, .dropped, "false (send at each device's local time) only matters with a scheduled send_date; this notification is sent now, so it changes nothing and is not used", severity: .info)
            }
        }
        if r.raw(.send_rate) != nil {
            scope.note(scope.field("send_rate"), .dropped, "Pushwoosh does not apply send_rate to Live Activity pushes (its reference: their send rate \"cannot be customised with send_rate\") and OpenPush has no send rate, so it is not forwarded; delivery paces as with Pushwoosh", severity: .info)
        }
    }

    /// The UTC instant of a wall-clock time in a zone (two-step offset lookup, so times
    /// around a DST change resolve the way the zone's rules say).
    static func utc(wall: Int64, in zone: TimeZone) -> Int64 {
        let first = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall))))
        let second = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall - first))))
        return wall - second
    }

    /// Parses exactly "YYYY-MM-DD HH:mm" with a valid calendar date.
    static func parse(_ text: String) -> (y: Int, mo: Int, d: Int, h: Int, mi: Int)? {
        let u = Array(text.utf8)
        guard u.count == 16, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x20, u[13] == 0x3A else { return nil }
        func num(_ a: Int, _ n: Int) -> Int? {
            var v = 0
            for i in a..<(a + n) {
                guard (0x30...0x39).contains(u[i]) else { return nil }
                v = v * 10 + Int(u[i] - 0x30)
            }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              (1...12).contains(mo), (1...TimestampConversion.daysIn(month: mo, year: y)).contains(d), h < 24, mi < 60 else { return nil }
        return (y, mo, d, h, mi)
    }

    /// "YYYY-MM-DDTHH:mm:ssZ" for a Unix time.
    static func iso(_ t: Int64) -> String { CivilTime.iso8601(t) }
}
