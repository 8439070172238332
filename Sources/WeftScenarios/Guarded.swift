import Synchronization

/// A value behind the standard library's mutex, shared between threads: the scenarios' counters and results.
/// (The scenarios are compiled into the Benchmarks package too, which sees only Weft's library products.)
final class Guarded<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<T: Sendable>(_ body: (inout Value) throws -> T) rethrows -> T {
        try mutex.withLock { value in try body(&value) }
    }
}
