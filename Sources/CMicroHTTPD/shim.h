#ifndef PUSHBRIDGE_CMICROHTTPD_SHIM_H
#define PUSHBRIDGE_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <microhttpd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <unistd.h>

/// The options PushBridge starts a daemon with, as typed fields (MHD_start_daemon is variadic).
typedef struct pb_mhd_options {
    /// MHD_USE_* flags.
    unsigned int flags;
    /// The address to bind (sockaddr_in or sockaddr_in6; its port is used).
    const struct sockaddr *bind_address;
    /// MHD_OPTION_CONNECTION_LIMIT.
    unsigned int connection_limit;
    /// MHD_OPTION_PER_IP_CONNECTION_LIMIT (0 = no limit).
    unsigned int per_ip_connection_limit;
    /// MHD_OPTION_CONNECTION_MEMORY_LIMIT in bytes.
    size_t connection_memory_limit;
    /// MHD_OPTION_CONNECTION_TIMEOUT in seconds (0 = never).
    unsigned int connection_timeout_seconds;
    /// MHD_OPTION_THREAD_POOL_SIZE.
    unsigned int thread_pool_size;
    /// MHD_OPTION_LISTEN_SOCKET: an already bound, listening socket to accept on instead of
    /// binding `bind_address` (-1: bind).
    int listen_socket;
    /// MHD_OPTION_HTTPS_MEM_CERT: the PEM certificate chain, leaf first (NULL: plain HTTP).
    const char *tls_certificate_chain;
    /// MHD_OPTION_HTTPS_MEM_KEY: the PEM private key of the leaf certificate.
    const char *tls_private_key;
    /// MHD_OPTION_HTTPS_PRIORITIES: the GnuTLS priority string (versions, ciphers).
    const char *tls_priorities;
} pb_mhd_options;

/// The epoll calls of PushBridge's event loop (`struct epoll_event` is packed on x86-64, which
/// Swift cannot import): a new epoll descriptor (close-on-exec), -1 on failure.
static inline int pb_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// Watches `fd` for reading in `epoll` (level-triggered); 0 on success.
static inline int pb_epoll_add(int epoll, int fd) {
    struct epoll_event event = { .events = EPOLLIN, .data = { .fd = fd } };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

/// Watches `fd` in `epoll` for reading and/or writing (level-triggered), adding it (`change` 0)
/// or changing what is watched (`change` 1); 0 on success.
static inline int pb_epoll_watch(int epoll, int fd, int readable, int writable, int change) {
    struct epoll_event event = { .events = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0), .data = { .fd = fd } };
    return epoll_ctl(epoll, change ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

/// A non-blocking, close-on-exec timer descriptor on the monotonic clock, -1 on failure.
static inline int pb_timerfd(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

/// Arms `fd` to become readable once in `ms` milliseconds (0: at once), or disarms it (`ms` < 0).
static inline int pb_timerfd_arm(int fd, long ms) {
    struct itimerspec spec = { { 0, 0 }, { 0, 0 } };
    if (ms == 0) spec.it_value.tv_nsec = 1;
    else if (ms > 0) { spec.it_value.tv_sec = ms / 1000; spec.it_value.tv_nsec = (ms % 1000) * 1000000; }
    return timerfd_settime(fd, 0, &spec, NULL);
}

/// Stops watching `fd` in `epoll`; 0 on success.
static inline int pb_epoll_remove(int epoll, int fd) {
    struct epoll_event event = { 0 };
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event);
}

/// Waits up to `timeout_ms` (-1: no limit) for descriptors of `epoll` to be readable; writes up
/// to `capacity` of them to `ready` and returns how many (0 on timeout or interruption).
static inline int pb_epoll_wait(int epoll, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout_ms);
    for (int index = 0; index < count; index++) ready[index] = events[index].data.fd;
    return count < 0 ? 0 : count;
}

/// Names the calling thread (what `top -H` and /proc/<pid>/task/*/comm show; the kernel keeps
/// the first 15 bytes).
static inline void pb_thread_name(const char *name) { prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

/// A non-blocking, close-on-exec eventfd (the loop's wake-up), -1 on failure.
static inline int pb_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// Starts a daemon with fixed options: the access handler, a completion callback, a URI
/// callback (which sees the raw request target, query included, and creates `*req_cls`) and a
/// connection callback (each connection's start and close). The optional ones (a handed-over
/// listening socket, TLS) go in through MHD_OPTION_ARRAY.
static inline struct MHD_Daemon *pb_mhd_start_daemon(
    const pb_mhd_options *options,
    MHD_AccessHandlerCallback access_handler,
    MHD_RequestCompletedCallback completed,
    void *(*uri_logger)(void *cls, const char *uri, struct MHD_Connection *connection),
    MHD_NotifyConnectionCallback connection_notifier,
    void *context)
{
    struct MHD_OptionItem optional[5];
    int count = 0;
    if (options->listen_socket >= 0) {
        optional[count++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, (intptr_t)options->listen_socket, NULL };
    } else {
        optional[count++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)options->bind_address };
    }
    if (options->tls_certificate_chain != NULL) {
        optional[count++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)options->tls_certificate_chain };
        optional[count++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)options->tls_private_key };
        optional[count++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)options->tls_priorities };
    }
    optional[count] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(
        options->flags, 0, NULL, NULL, access_handler, context,
        MHD_OPTION_ARRAY, optional,
        MHD_OPTION_CONNECTION_LIMIT, options->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, options->per_ip_connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, options->connection_memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, options->connection_timeout_seconds,
        MHD_OPTION_THREAD_POOL_SIZE, options->thread_pool_size,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_URI_LOG_CALLBACK, uri_logger, context,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notifier, context,
        MHD_OPTION_END);
}

/// 1 when this libmicrohttpd was built with TLS support (GnuTLS in Debian's build).
static inline int pb_mhd_tls_supported(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/// The listening socket of a daemon (-1 if it has none). MHD_get_daemon_info is variadic.
static inline int pb_mhd_listen_socket(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    return info == NULL ? -1 : info->listen_fd;
}

/// The epoll descriptor of a daemon started with MHD_USE_EPOLL and no internal polling thread
/// (readable when the daemon has work for MHD_run), or -1. MHD_get_daemon_info is variadic.
static inline int pb_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// How long an externally polled daemon may wait before MHD_run must be called again, in
/// milliseconds (-1: until one of its descriptors is ready).
static inline int pb_mhd_timeout_ms(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return -1;
    return timeout > 0x7fffffff ? 0x7fffffff : (int)timeout;
}

/// The connections a daemon has open now. MHD_get_daemon_info is variadic.
static inline unsigned int pb_mhd_open_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The port a daemon is bound to (0 if unknown). MHD_get_daemon_info is variadic.
static inline uint16_t pb_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Writes the peer address of a connection as text into `buffer`; returns 0 on success.
/// MHD_get_connection_info is variadic.
static inline int pb_mhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *raw = NULL;
    if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, size) == NULL ? -1 : 0;
}

/// The socket of a connection, or -1. MHD_get_connection_info is variadic.
static inline int pb_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The size in bytes of a connection's request head as received (request line, headers and
/// the blank line), or 0. MHD_get_connection_info is variadic.
static inline size_t pb_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// The HTTP status queued on a connection (libmicrohttpd's own error answers included), or 0.
/// MHD_get_connection_info is variadic.
static inline unsigned int pb_mhd_connection_status(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
    return info == NULL ? 0 : info->http_status;
}

/// glibc's `struct tcp_info` and the kernel's fields after it (Linux 4.1+), up to the bytes
/// acknowledged by the peer.
typedef struct pb_tcp_info {
    struct tcp_info base;
    uint64_t pacing_rate;
    uint64_t max_pacing_rate;
    uint64_t bytes_acked;
} pb_tcp_info;

/// The bytes written to the TCP socket `fd` so far (acknowledged by the peer, or still in the
/// send queue), or -1 when the kernel does not say.
static inline long long pb_tcp_bytes_written(int fd) {
    pb_tcp_info info;
    memset(&info, 0, sizeof(info));
    socklen_t length = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 || length < offsetof(pb_tcp_info, bytes_acked) + sizeof(uint64_t)) return -1;
    int queued = 0;
    if (ioctl(fd, TIOCOUTQ, &queued) != 0) queued = 0;
    return (long long)info.bytes_acked + queued;
}

/// Fills `storage` with the numeric IPv4 or IPv6 `host` and `port`; returns the address
/// length, or 0 if `host` is not a numeric address.
static inline socklen_t pb_mhd_make_address(const char *host, uint16_t port, struct sockaddr_storage *storage) {
    memset(storage, 0, sizeof(*storage));
    struct sockaddr_in *v4 = (struct sockaddr_in *)storage;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return sizeof(struct sockaddr_in);
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)storage;
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return sizeof(struct sockaddr_in6);
    }
    return 0;
}
#endif
