import WeftLayout
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

    /// Takes the lock; pair with ``unlock()`` (for accessors that yield while holding it).
    @inline(__always)
    package func lock() {
        pthread_mutex_lock(mutex)
    }

    @inline(__always)
    package func unlock() {
        pthread_mutex_unlock(mutex)
    }
}

/// A value guarded by its own lock, for state shared between threads (a data source's model, counters).
///
/// Keep the critical sections short, and never call code that may take another lock (or this one) inside.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access to `value` holds `lock`.
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    @inline(__always)
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}

/// A per-thread spare `LayoutBuilder`, so that laying out one node after another on a thread reuses the same
/// arena instead of allocating one each time.
///
/// `take` hands out the thread's spare (or a new builder when the spare is in use: nested layouts get their
/// own) and `give` puts it back. Only the owning thread touches its spare.
package enum BuilderPool {
    private final class Spare {
        var builder: LayoutBuilder?

        var isEmpty: Bool {
            switch builder {
            case .none: return true
            case .some: return false
            }
        }

        init(_ builder: consuming LayoutBuilder) {
            self.builder = consume builder
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return key
    }()

    package static func take(scale: Double) -> LayoutBuilder {
        if let pointer = pthread_getspecific(key) {
            let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
            if let builder = spare.builder.take(), builder.grid.scale == scale {
                return builder
            }
        }
        return LayoutBuilder(scale: scale)
    }

    package static func give(_ builder: consuming LayoutBuilder) {
        builder.reset()
        if let pointer = pthread_getspecific(key) {
            let spare = Unmanaged<Spare>.fromOpaque(pointer).takeUnretainedValue()
            if spare.isEmpty { spare.builder = consume builder }
            return
        }
        let spare = Spare(builder)
        pthread_setspecific(key, Unmanaged.passRetained(spare as AnyObject).toOpaque())
    }
}
