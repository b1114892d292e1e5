import CCurl

extension UpstreamFailure {
    /// Classifies a failed transfer. `requestBytesWritten` is `CURLINFO_REQUEST_SIZE`: curl
    /// adds to it only after writing request bytes to the socket, so 0 proves nothing was sent.
    static func classify(code: CURLcode, requestBytesWritten: Int, exceededLimit: Bool, message: String, latency: Duration) -> UpstreamFailure {
        let notSent = requestBytesWritten == 0
        let kind: Kind
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = notSent ? .connectFailed : .other
        case CURLE_OPERATION_TIMEDOUT:
            kind = notSent ? .connectFailed : .timedOut
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            kind = notSent ? .connectFailed : .other
        case CURLE_FILESIZE_EXCEEDED:
            kind = .responseTooLarge
        case CURLE_WRITE_ERROR where exceededLimit:
            kind = .responseTooLarge
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            kind = .reset
        default:
            kind = .other
        }
        return UpstreamFailure(kind: kind, message: message, curlCode: Int(code.rawValue), provablyNotSent: notSent, latency: latency)
    }
}
