import CMicroHTTPD
import Foundation

extension Thread {
    /// A thread that runs `body` under `name`, given to the kernel as well (its first 15
    /// bytes), where `top -H`, `ps -L` and `/proc/PID/task/*/comm` show it: Foundation's `name`
    /// alone does not reach the kernel on Linux, so such a thread shows its creator's name.
    convenience init(named name: String, _ body: @escaping @Sendable () -> Void) {
        self.init {
            pb_thread_name(name)
            body()
        }
        self.name = name
    }
}
