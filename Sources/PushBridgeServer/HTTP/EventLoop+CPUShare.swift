import Glibc

/// One reading of how long a loop's thread has waited, runnable, for a CPU.
struct CPUWaitSample {
    /// When it was read.
    var at: ContinuousClock.Instant
    /// The thread's total wait for a CPU so far (nanoseconds, the second field of
    /// `/proc/thread-self/schedstat`).
    var waitedNs: UInt64
    /// How many times the thread has been given a CPU so far (the third field): each wait
    /// above ends with one.
    var slices: UInt64
}

extension EventLoop {
    /// How long at least between two readings of the thread's wait (``hasCPUToSpare``).
    static let cpuSampleInterval = Duration.milliseconds(100)
    /// The share of the time between two readings above which the thread counts the CPU as
    /// scarce: a loop of a host with spare cores waits for one about never; on a saturated one
    /// (load 7–9 on 2 cores) it waited 10–20 % of the time even with the audit commits on the
    /// writer.
    static let scarceWaitShare = 0.05
    /// The share below which a thread that found the CPU scarce counts it as plentiful again:
    /// lower than ``scarceWaitShare``, for with its commits on the writer thread the loop waits
    /// less than it did committing them, and would otherwise switch back and forth.
    static let plentifulWaitShare = 0.01
    /// The mean wait for a CPU each time the thread was given one (nanoseconds) above which the
    /// waits say the CPU is scarce: threads queue behind others for a slice (74–414 µs a wait
    /// at load 6–10 on 2 cores). Below it the waits are the wake-up latency of a thread woken
    /// often: a loop whose commits went to the writer is woken for each acknowledgement, and at
    /// one connection on an otherwise quiet 2-core host it waited 29–32 µs a wake-up, 13–17 %
    /// of its time, which a spare CPU does not remove and which kept it above
    /// ``plentifulWaitShare`` for good; committing itself it waited 1–9 µs a wake-up
    /// (docs/benchmarks.md, "The loop's commits at one connection").
    static let scarceSliceWaitNs: UInt64 = 60_000
    /// The mean wait per slice below which a thread that found the CPU scarce counts it as
    /// plentiful again, whatever its share of the time: above the wake-up latency of the
    /// writer's mode, so a quiet host finds its way back.
    static let plentifulSliceWaitNs: UInt64 = 40_000

    /// Whether the loop's thread got a CPU when it wanted one, over the last
    /// ``cpuSampleInterval`` or more (read at most that often, from
    /// `/proc/thread-self/schedstat`; true when it cannot be read). Call on the loop's thread.
    ///
    /// What asks it: a loop about to commit its own audit operation
    /// (`AuditWriter+Loop.swift`). On a saturated CPU each thread gets its fair share, and a
    /// request whose work one thread does (the loop committing) waits about twice as long for a
    /// CPU as one whose work is split between the loop and the writer thread
    /// (docs/benchmarks.md, "Loop commits when the loop is idle").
    var hasCPUToSpare: Bool {
        precondition(inLoop, "hasCPUToSpare on the loop's thread")
        let now = ContinuousClock.now
        if let last = cpuSample, last.at.duration(to: now) < Self.cpuSampleInterval { return !cpuScarce }
        guard let (waited, slices) = Self.threadSchedstat() else { return true }
        if let last = cpuSample, waited >= last.waitedNs, slices >= last.slices {
            cpuScarce = Self.isScarce(waitedNs: waited - last.waitedNs, slices: slices - last.slices,
                                      over: last.at.duration(to: now), wasScarce: cpuScarce)
        }
        cpuSample = CPUWaitSample(at: now, waitedNs: waited, slices: slices)
        return !cpuScarce
    }

    /// Whether waiting `waitedNs` for a CPU over `interval`, in `slices` waits, says the CPU is
    /// scarce: more than ``scarceWaitShare`` of the time and more than ``scarceSliceWaitNs`` a
    /// wait; or, when it was scarce at the last reading, more than ``plentifulWaitShare`` and
    /// more than ``plentifulSliceWaitNs`` a wait.
    static func isScarce(waitedNs: UInt64, slices: UInt64, over interval: Duration, wasScarce: Bool) -> Bool {
        let (seconds, attoseconds) = interval.components
        let intervalNs = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        guard intervalNs > 0 else { return false }
        let share = wasScarce ? plentifulWaitShare : scarceWaitShare
        let sliceWait = wasScarce ? plentifulSliceWaitNs : scarceSliceWaitNs
        return Double(waitedNs) > share * intervalNs && waitedNs > sliceWait * max(slices, 1)
    }

    /// The calling thread's total wait for a CPU (nanoseconds) and how many times it was given
    /// one, or nil if the kernel does not say (`/proc/thread-self/schedstat`: run time, wait
    /// time, slices).
    static func threadSchedstat() -> (waitedNs: UInt64, slices: UInt64)? {
        let fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer -> (UInt64, UInt64)? in
            let count = read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return nil }
            var field = 0, value: UInt64 = 0, waited: UInt64 = 0, inNumber = false
            for byte in buffer[..<count] {
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    value = value &* 10 &+ UInt64(byte &- UInt8(ascii: "0")); inNumber = true
                    continue
                }
                guard inNumber else { continue }
                if field == 1 { waited = value }
                if field == 2 { return (waited, value) }
                field += 1; value = 0; inNumber = false
            }
            return inNumber && field == 2 ? (waited, value) : nil
        }
    }
}
