@testable import PushBridgeServer
import Testing

/// The limiter counts a line seen before in place (issue 31: one lookup a finding): the
/// counts, windows and lines it admits are what they were.
struct FindingLogLimiterTests {
    static func line(_ reason: String) -> FindingLogLimiter.Line {
        FindingLogLimiter.Line(app: "a", dialect: "onesignal", route: "start", field: "f", kind: "caveat", reason: reason)
    }

    @Test func identicalLinesPastTheRateWaitForTheirWindowToEnd() {
        let limiter = FindingLogLimiter(identicalLinesPerWindow: 3, windowMilliseconds: 1_000)
        #expect((0..<5).map { limiter.admit(Self.line("x"), nowMs: 10_000 + Int64($0)) } == [true, true, true, false, false])
        #expect(limiter.admit(Self.line("y"), nowMs: 10_005), "another line has its own count")
        #expect(!limiter.admit(Self.line("x"), nowMs: 10_999))
        // The window began at the line's first occurrence (10,000): from 11,000 a new one.
        #expect((0..<4).map { limiter.admit(Self.line("x"), nowMs: 11_000 + Int64($0)) } == [true, true, true, false])
        #expect(limiter.admit(Self.line("y"), nowMs: 11_004) && limiter.admit(Self.line("y"), nowMs: 11_004))
        #expect(!limiter.admit(Self.line("y"), nowMs: 11_004))
    }

    @Test func pastTheRememberedLinesOldWindowsAreForgotten() {
        let limiter = FindingLogLimiter(identicalLinesPerWindow: 1, windowMilliseconds: 1_000)
        for i in 0..<FindingLogLimiter.maxRemembered { #expect(limiter.admit(Self.line("r\(i)"), nowMs: 0)) }
        // Full: the entries of windows over are dropped, and r0's count starts again.
        #expect(limiter.admit(Self.line("r0"), nowMs: 1_000))
        #expect(!limiter.admit(Self.line("r0"), nowMs: 1_001))
    }
}
