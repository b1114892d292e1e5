import Glibc

/// A thread-specific key for an object a thread keeps for itself (retained through `Unmanaged`,
/// as ``ThreadRandomBytes`` and ``ThreadScratchBytes`` keep theirs): its destructor releases the
/// object when the thread exits.
func makeThreadObjectKey() -> pthread_key_t {
    var key = pthread_key_t()
    pthread_key_create(&key) { raw in
        guard let raw else { return }
        Unmanaged<AnyObject>.fromOpaque(raw).release()
    }
    return key
}
