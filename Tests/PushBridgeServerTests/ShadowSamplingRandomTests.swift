@testable import PushBridgeServer
import Testing

/// A shadow's sampling draw (`sample_percent` 1–99) takes its randomness from the thread's
/// buffer of the system's random bytes (``ThreadRandomBytes``), with the distribution the
/// standard library's draw over the system generator has: uniform over 0..<100.
struct ShadowSamplingRandomTests {
    @Test func aSamplingDrawTakesEightBytesOfTheThreadsBufferNotAGetrandomOfItsOwn() {
        nonisolated(unsafe) var refills: [Int] = []
        RequestIDRandomBytesTests.onNewThread {
            let shadow = ShadowSettings(samplePercent: 50)
            for _ in 0..<512 { _ = ShadowMode.sampled(shadow) }
            refills.append(ThreadRandomBytes.current.refills)
            for _ in 0..<512 { _ = ShadowMode.sampled(shadow) }
            refills.append(ThreadRandomBytes.current.refills)
            _ = ShadowMode.sampled(shadow)
            refills.append(ThreadRandomBytes.current.refills)
            // 0 and 100 draw nothing.
            for percent in [0, 100] { _ = ShadowMode.sampled(ShadowSettings(samplePercent: percent)) }
            refills.append(ThreadRandomBytes.current.refills)
        }
        // Before, each draw was a getrandom through SystemRandomNumberGenerator: [0, 0, 0, 0].
        #expect(refills == [1, 2, 3, 3], "4 KiB drawn per 512 draws (8 bytes each), refilled when used up")
    }

    @Test func theShareSampledIsThePercentAndNoneOrAllAtTheEnds() {
        let draws = 20_000
        for percent in [1, 37, 99] {
            let shadow = ShadowSettings(samplePercent: percent)
            let sampled = (0..<draws).count { _ in ShadowMode.sampled(shadow) }
            let share = Double(sampled) / Double(draws)
            // More than 6 standard deviations of the binomial apart at most (0.0034 at 37 %).
            #expect(abs(share - Double(percent) / 100) < 0.02, "\(percent) %: \(share)")
        }
        #expect((0..<1000).allSatisfy { _ in !ShadowMode.sampled(ShadowSettings(samplePercent: 0)) })
        #expect((0..<1000).allSatisfy { _ in ShadowMode.sampled(ShadowSettings(samplePercent: 100)) })
    }

    /// The draw `sampled` makes, over the thread's buffer: every value of 0..<100 about equally
    /// often (a chi-square of 100,000 draws against the uniform: mean 99, standard deviation 14;
    /// 200 is about 7 of them).
    @Test func theDrawOverTheThreadsBufferIsUniformOver0To99() {
        var generator = ThreadRandomBytes.Generator()
        var counts = [Int](repeating: 0, count: 100)
        let draws = 100_000
        for _ in 0..<draws { counts[Int.random(in: 0..<100, using: &generator)] += 1 }
        let expected = Double(draws) / 100
        let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        #expect(chiSquare < 200, "chi-square \(chiSquare) over 99 degrees of freedom")
        #expect(counts.allSatisfy { $0 > 0 })
    }
}
