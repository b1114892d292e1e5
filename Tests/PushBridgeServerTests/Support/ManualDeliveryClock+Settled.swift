import PushBridgeServer

extension ManualDeliveryClock {
    /// Waits until `count` tasks sleep on this clock again. After the clock moved or the
    /// scheduler was woken, the scheduler's sleeper is gone until it has finished its pass over
    /// what is due and sleeps again: the moment to assert what that pass did (or did not) send.
    func settled(sleepers count: Int = 1, within seconds: Double = 10) async -> Bool {
        await eventually(seconds) { self.sleeperCount == count }
    }
}

extension ProxyHarness {
    /// ``ManualDeliveryClock/settled(sleepers:within:)`` on the harness's manual clock (false
    /// when it runs on the system clock: there is nothing to wait for).
    func schedulerSettled(within seconds: Double = 10) async -> Bool {
        guard let manualClock else { return false }
        return await manualClock.settled(within: seconds)
    }
}
