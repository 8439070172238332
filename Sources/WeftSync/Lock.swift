// The project's concurrency primitives: one lock type and a value guarded by it. Everything else that is
// shared between threads is an Atomic (Synchronization) or confined to one queue.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The mutex calls of ``Lock`` and ``Locked``, with their results checked (as swift-nio's `NIOLock`): a failure
/// stops the program with the call and its error, where an ignored one would go on without mutual exclusion.
/// Debug builds make error-checking mutexes, so that a thread taking a lock it holds, or releasing one it does
/// not, fails at once instead of deadlocking or corrupting the mutex.
@usableFromInline
enum PthreadMutex {
    @inlinable
    static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        mutex.initialize(to: pthread_mutex_t())
        #if DEBUG && canImport(Glibc)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let result = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        #else
        let result = pthread_mutex_init(mutex, nil)
        #endif
        precondition(result == 0, "pthread_mutex_init failed with error \(result)")
    }

    @inlinable @inline(__always)
    static func lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed with error \(result) (35: this thread holds it already)")
    }

    @inlinable @inline(__always)
    static func unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed with error \(result) (1: this thread does not hold it)")
    }

    @inlinable
    static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        let result = pthread_mutex_destroy(mutex)
        precondition(result == 0, "pthread_mutex_destroy failed with error \(result) (16: it is held)")
        mutex.deinitialize(count: 1)
    }
}

/// A small mutex for short critical sections (pthread based: the Thread Sanitizer models it exactly), in one
/// allocation: the mutex lives in the object's tail, at an address that never moves.
///
/// House rule: never call user code, another node or the layout algorithm while holding one. Every use is a
/// few loads and stores of one state struct.
public struct Lock: @unchecked Sendable {
    // @unchecked: the mutex is the synchronization (copies share it).
    // Inlinable (as the rest of this file): a client specializes these generics instead of calling them
    // through metadata across the module boundary.
    @usableFromInline let storage: Storage

    @usableFromInline
    final class Storage: ManagedBuffer<Void, pthread_mutex_t> {
        deinit {
            withUnsafeMutablePointerToElements { PthreadMutex.destroy($0) }
        }
    }

    @inlinable
    init(storage: Storage) {
        self.storage = storage
    }

    @inlinable
    public static func make() -> Lock {
        let buffer = Storage.create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { PthreadMutex.initialize($0) }
        }
        return Lock(storage: unsafeDowncast(buffer, to: Storage.self))
    }

    @inlinable @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Takes the lock; pair with ``unlock()`` (for accessors that yield while holding it).
    @inlinable @inline(__always)
    public func lock() {
        LockCount.bump()
        storage.withUnsafeMutablePointerToElements { PthreadMutex.lock($0) }
    }

    @inlinable @inline(__always)
    public func unlock() {
        storage.withUnsafeMutablePointerToElements { PthreadMutex.unlock($0) }
    }
}

/// A value guarded by its own lock, for state shared between threads (a data source's model, counters): one
/// allocation holding the value and the mutex (as swift-nio's `NIOLockedValueBox`).
///
/// Keep the critical sections short, and never call code that may take another lock (or this one) inside.
public struct Locked<Value> {
    @usableFromInline let storage: Storage

    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        // The value is the header, which ManagedBuffer destroys itself; the mutex is the one element.
        deinit {
            withUnsafeMutablePointerToElements { PthreadMutex.destroy($0) }
        }
    }

    @inlinable
    public init(_ value: Value) {
        self.init(making: { value })
    }

    /// A box whose value `make` creates in place (a large value is not made, copied in, then destroyed).
    @inlinable
    public init(making make: () -> Value) {
        let buffer = Storage.create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { PthreadMutex.initialize($0) }
            return make()
        }
        storage = unsafeDowncast(buffer, to: Storage.self)
    }

    @inlinable @inline(__always)
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        LockCount.bump()
        return try storage.withUnsafeMutablePointers { value, mutex in
            PthreadMutex.lock(mutex)
            defer { PthreadMutex.unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// Takes the lock and returns the value's address (stable for the box's lifetime): for an accessor that
    /// yields the value in place while holding the lock. Pair with ``unlock()``; touch the pointer only between.
    @inlinable @inline(__always)
    public func lockedPointer() -> UnsafeMutablePointer<Value> {
        LockCount.bump()
        // (Borrowed, not retained: this box keeps its storage alive, and its caller keeps the box.)
        return Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { storage in
            storage.withUnsafeMutablePointers { value, mutex in
                PthreadMutex.lock(mutex)
                return value
            }
        }
    }

    /// The value's address (stable for the box's lifetime), without taking the lock: for a lock-free protocol over
    /// a part of the value that its writers keep while holding the lock (such as two slots that a ``SlotPair``
    /// alternates between). Read through it only what that protocol makes safe, and write nothing.
    @inlinable @inline(__always)
    public func valueAddress() -> UnsafeMutablePointer<Value> {
        Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { $0.withUnsafeMutablePointerToHeader { $0 } }
    }

    /// Releases the lock taken by ``lockedPointer()``.
    @inlinable @inline(__always)
    public func unlock() {
        Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { storage in
            storage.withUnsafeMutablePointerToElements { PthreadMutex.unlock($0) }
        }
    }
}

// Sendable where the value is (as swift-nio's `NIOLockedValueBox`): the mutex makes access exclusive, but a
// value that is not Sendable could still leave the box and be shared. @unchecked: every access to the value
// holds the mutex (copies share it).
extension Locked: @unchecked Sendable where Value: Sendable {}

/// Debug builds count every acquisition of a ``Lock`` or ``Locked`` per thread, so that tests can pin how many
/// locks an operation takes (release builds count nothing and report `isCounting == false`).
public enum LockCount {
    /// Whether this build counts (debug builds: the `WEFT_COUNT_LOCKS` condition of the WeftSync target).
    #if WEFT_COUNT_LOCKS
    public static let isCounting = true
    #else
    public static let isCounting = false
    #endif

    /// The locks this thread has taken so far (0 when not counting).
    public static var onThisThread: Int {
        #if WEFT_COUNT_LOCKS
        return counter.pointee
        #else
        return 0
        #endif
    }

    /// The locks `body` takes on this thread (0 when not counting).
    public static func taken<T, E: Error>(by body: () throws(E) -> T) throws(E) -> (result: T, locks: Int) {
        let before = onThisThread
        let result = try body()
        return (result, onThisThread - before)
    }

    @inlinable @inline(__always)
    static func bump() {
        #if WEFT_COUNT_LOCKS
        counter.pointee += 1
        #endif
    }

    #if WEFT_COUNT_LOCKS
    /// This thread's counter (allocated on its first lock, freed with the thread).
    @usableFromInline static var counter: UnsafeMutablePointer<Int> {
        if let pointer = pthread_getspecific(key) { return pointer.assumingMemoryBound(to: Int.self) }
        let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        pthread_setspecific(key, pointer)
        return pointer
    }

    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { $0?.deallocate() }
        return key
    }()
    #endif
}
