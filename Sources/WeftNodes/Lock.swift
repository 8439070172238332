#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small mutex for short critical sections (pthread based: the Thread Sanitizer models it exactly).
///
/// House rule: never call user code, another node or the layout algorithm while holding one. Every use is a
/// few loads and stores of one state struct.
package final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is the synchronization.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by its own lock.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access to `value` holds `lock`.
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
