/// Second/millisecond confusion and ISO 8601 timestamps.
public enum TimestampConversion {
    /// A Unix time in seconds; a value ≥ 1e11 is read as milliseconds and converted with a
    /// finding when that gives seconds. A value that is not seconds even then (microseconds)
    /// is returned unchanged, with no finding, for `OpenPushCheck` to reject.
    public static func seconds(_ value: Int64, field: String, findings: inout [Finding]) -> Int64 {
        guard value >= OpenPushLimits.millisecondThreshold else { return value }
        let s = value / 1000
        guard s < OpenPushLimits.millisecondThreshold else { return value }
        findings.append(Finding(field: field, kind: .converted,
                                message: MessageText("\(value) is ≥ 1e11, so it was read as milliseconds and sent as \(s) seconds (OpenPush rejects millisecond values)").text))
        return s
    }

    /// Parses an ISO 8601 / RFC 3339 date-time (`2026-09-03T21:00:00.000Z`, offsets allowed,
    /// fraction optional) into Unix seconds, truncating any fraction. Nil when it does not parse.
    public static func unixSeconds(iso text: String) -> Int64? {
        let u = Array(text.utf8)
        func num(_ a: Int, _ n: Int) -> Int? {
            guard a + n <= u.count else { return nil }
            var v = 0
            for i in a..<(a + n) {
                guard (0x30...0x39).contains(u[i]) else { return nil }
                v = v * 10 + Int(u[i] - 0x30)
            }
            return v
        }
        guard u.count >= 20, let y = num(0, 4), u[4] == 0x2D, let mo = num(5, 2), u[7] == 0x2D, let d = num(8, 2),
              u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: "t") || u[10] == 0x20,
              let h = num(11, 2), u[13] == 0x3A, let mi = num(14, 2), u[16] == 0x3A, let s = num(17, 2),
              (1...12).contains(mo), (1...daysIn(month: mo, year: y)).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var i = 19
        if i < u.count, u[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < u.count, (0x30...0x39).contains(u[i]) { i += 1 }
            guard i > start else { return nil }
        }
        guard i < u.count else { return nil }
        var offset = 0
        if u[i] == UInt8(ascii: "Z") || u[i] == UInt8(ascii: "z") {
            i += 1
        } else if u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
            guard let oh = num(i + 1, 2), i + 3 < u.count, u[i + 3] == 0x3A, let om = num(i + 4, 2), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (u[i] == UInt8(ascii: "+") ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == u.count else { return nil }
        return CivilTime.unixSeconds(year: y, month: mo, day: d, hour: h, minute: mi, second: s) - Int64(offset)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Calendar arithmetic without Foundation (proleptic Gregorian, UTC).
public enum CivilTime {
    /// Unix seconds for a UTC civil time.
    public static func unixSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = Int64(era * 146_097 + doe - 719_468)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian (year, month, day) of a day
    /// count since 1970-01-01.
    public static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// "YYYY-MM-DDTHH:mm:ssZ" for a Unix time in seconds.
    public static func iso8601(_ t: Int64) -> String {
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = Int(t - days * 86_400)
        let (y, m, d) = civil(fromDays: days)
        func two(_ v: Int) -> String { v < 10 ? MessageText("0\(v)").text : MessageText("\(v)").text }
        return MessageText("\(y)-\(two(Int(m)))-\(two(Int(d)))T\(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60))Z").text
    }
}
