import Glibc

/// One reading of how long a loop's thread has waited, runnable, for a CPU.
struct CPUWaitSample {
    /// When it was read.
    var at: ContinuousClock.Instant
    /// The thread's total wait for a CPU so far (nanoseconds, the second field of
    /// `/proc/thread-self/schedstat`).
    var waitedNs: UInt64
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
        guard let waited = Self.threadWaitNs() else { return true }
        if let last = cpuSample, waited >= last.waitedNs {
            cpuScarce = Self.isScarce(waitedNs: waited - last.waitedNs, over: last.at.duration(to: now), wasScarce: cpuScarce)
        }
        cpuSample = CPUWaitSample(at: now, waitedNs: waited)
        return !cpuScarce
    }

    /// Whether waiting `waitedNs` for a CPU over `interval` says the CPU is scarce: more than
    /// ``scarceWaitShare`` of it, or, when it was scarce at the last reading, more than
    /// ``plentifulWaitShare``.
    static func isScarce(waitedNs: UInt64, over interval: Duration, wasScarce: Bool) -> Bool {
        let (seconds, attoseconds) = interval.components
        let intervalNs = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return intervalNs > 0 && Double(waitedNs) > (wasScarce ? plentifulWaitShare : scarceWaitShare) * intervalNs
    }

    /// The calling thread's total wait for a CPU (nanoseconds), or nil if the kernel does not say.
    static func threadWaitNs() -> UInt64? {
        let fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 96)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        return UInt64(String(decoding: fields[1], as: UTF8.self))
    }
}
