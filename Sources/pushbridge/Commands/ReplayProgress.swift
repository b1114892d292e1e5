import Foundation

/// A progress bar on stderr (only when stderr is a terminal).
final class ReplayProgress: Sendable {
    let total: Int
    let enabled: Bool
    let unit: String

    init(total: Int, enabled: Bool, unit: String = "requests") {
        self.total = total
        self.enabled = enabled
        self.unit = unit
    }

    func update(_ done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30, filled = done * width / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(bar) \(done)/\(total) \(unit)".utf8))
    }

    func finish() {
        if enabled, total > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
