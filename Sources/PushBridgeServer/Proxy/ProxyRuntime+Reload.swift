import Dispatch
import Foundation
import Glibc
import Synchronization

extension ProxyRuntime {
    /// Re-reads the configuration file and applies its apps, modes, shadows and legacy URLs
    /// (see ``reload(_:)``). An invalid file changes nothing and is logged with every problem.
    @discardableResult
    public func reload(fromFileAt path: String, environment: [String: String]) -> Bool {
        do {
            reload(try ProxyConfiguration.load(fileAt: path, environment: environment))
            return true
        } catch {
            logReloadFailure(path, error.problems.map(\.description))
            return false
        }
    }

    /// Reloads from `path` on every SIGHUP until the returned object is released.
    public func reloadOnHangup(configPath path: String) -> HangupReloader {
        HangupReloader { [self] in reload(fromFileAt: path, environment: ProcessInfo.processInfo.environment) }
    }
}

/// Calls its action on every SIGHUP, on its own queue, until released.
public final class HangupReloader: Sendable {
    private let source: Mutex<(any DispatchSourceSignal)?>

    /// Installs the SIGHUP handler.
    public init(_ action: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "pushbridge.sighup"))
        s.setEventHandler(handler: action)
        s.resume()
        source = Mutex(s)
    }

    deinit {
        source.withLock { $0?.cancel() }
    }
}
