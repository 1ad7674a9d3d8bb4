#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: the lock every mutable state shared between threads in Herald uses.
///
/// Not the standard library's `Synchronization.Mutex`: on Linux that locks with atomics and futex
/// calls inside the (uninstrumented) runtime, which the thread sanitizer cannot see, so every access
/// it protects is reported as a race and `scripts/tsan.sh` could find nothing real. A pthread mutex is
/// intercepted by the sanitizer, and uncontended it costs about the same (tens of nanoseconds).
///
/// `@unchecked Sendable`: the value is reached only inside `withLock`, under the mutex, and it enters
/// and leaves as `sending`, as with `Mutex`, so no non-Sendable state escapes to another thread.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Behind a pointer rather than a stored `var`: the mutex already makes access exclusive, and a class's
    /// `var` would also be checked at run time on every access (`swift_beginAccess`), several times a send.
    private let value: UnsafeMutablePointer<Value>

    public init(_ initialValue: consuming sending Value) {
        value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        value.initialize(to: initialValue)
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value, holding the lock; never call it again from inside `body` (not re-entrant).
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
