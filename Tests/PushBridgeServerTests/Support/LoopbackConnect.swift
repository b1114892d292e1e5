import Glibc

/// Connects the TCP socket `fd` to `port` on 127.0.0.1 (the only address tests may reach);
/// returns `connect(2)`'s result (0, or -1 with `errno` set).
func connectLoopback(_ fd: Int32, port: UInt16) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}
