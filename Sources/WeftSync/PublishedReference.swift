// The project's second concurrency primitive: an object reference that readers load with no lock.
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A strong reference to an immutable object, published atomically: readers borrow the current object with two
/// uncontended atomic increments and no lock; a writer swaps in a new one and releases the old one once no
/// reader can still be using it.
///
/// Reclamation: a reader counts itself in (`readers`) before it loads the pointer and out after it is done.
/// A writer exchanges the pointer, then waits until `readers` is zero before releasing the old object. All four
/// operations are sequentially consistent, so a reader either counted itself in before the writer looked at the
/// count (and the writer waits for it), or loads the pointer after the exchange (and never sees the old object).
/// Readers never wait. A writer waits only for readers already inside ``withCurrent(_:)`` (a few loads and
/// compares: its body must not block, publish, or call user code); it yields its thread while it waits.
public struct PublishedReference<Object: AnyObject & Sendable>: ~Copyable, @unchecked Sendable {
    // @unchecked: the pointer is an Atomic and the object it names is immutable and Sendable; the reader count
    // keeps it alive while it is read.
    @usableFromInline let bits = Atomic<UInt>(0)
    @usableFromInline let readers = Atomic<Int>(0)

    @inlinable
    public init() {}

    /// Calls `body` with the current object (nil if none was published), valid only during the call.
    @inlinable @inline(__always)
    public func withCurrent<Result>(_ body: (Object?) -> Result) -> Result {
        readers.add(1, ordering: .sequentiallyConsistent)
        defer { readers.subtract(1, ordering: .sequentiallyConsistent) }
        let current = bits.load(ordering: .sequentiallyConsistent)
        guard let pointer = UnsafeRawPointer(bitPattern: current) else { return body(nil) }
        return Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef { body($0) }
    }

    /// Makes `object` the current one (nil: none). Never call it from inside ``withCurrent(_:)``.
    @inlinable
    public func publish(_ object: Object?) {
        let new = object.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0
        let old = bits.exchange(new, ordering: .sequentiallyConsistent)
        guard let pointer = UnsafeRawPointer(bitPattern: old) else { return }
        while readers.load(ordering: .sequentiallyConsistent) != 0 {
            sched_yield()
        }
        Unmanaged<Object>.fromOpaque(pointer).release()
    }

    deinit {
        // No reader is left: the owner is being destroyed.
        if let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) {
            Unmanaged<Object>.fromOpaque(pointer).release()
        }
    }
}

/// A value published for readers that take no lock, in two slots that writers alternate between: the same
/// reclamation as ``PublishedReference`` (readers count themselves in; a writer switches slots, then waits until
/// no reader is inside), without an allocation per write. The slots are allocated at the first write and live
/// as long as this.
///
/// Writers MUST be serialized by the owner (a lock they hold while calling ``write(_:)``). A writer assigns the
/// slot that is not current: no reader can be in it, since the writer that last switched away from it waited
/// for every reader inside. Readers never wait; a writer waits only for readers already inside ``read(_:)``.
public struct DoubleBuffered<Value>: ~Copyable, @unchecked Sendable {
    // @unchecked: readers only read the current slot; the one writer at a time (serialized by the owner) only
    // assigns the other one, which no reader can be reading (see above).
    @usableFromInline let slots = Atomic<UInt>(0)
    @usableFromInline let current = Atomic<Int>(0)
    @usableFromInline let readers = Atomic<Int>(0)

    @usableFromInline
    final class Slots: ManagedBuffer<Void, Value> {
        deinit {
            _ = withUnsafeMutablePointerToElements { $0.deinitialize(count: 2) }
        }
    }

    @inlinable
    public init() {}

    /// Calls `body` with the current value's address (nil before the first write), valid only during the call;
    /// `body` must only read it, and must not block, write this, or call user code.
    @inlinable @inline(__always)
    public func read<Result>(_ body: (UnsafeMutablePointer<Value>?) -> Result) -> Result {
        readers.add(1, ordering: .sequentiallyConsistent)
        defer { readers.subtract(1, ordering: .sequentiallyConsistent) }
        guard let raw = UnsafeRawPointer(bitPattern: slots.load(ordering: .sequentiallyConsistent)) else { return body(nil) }
        let index = current.load(ordering: .sequentiallyConsistent)
        return Unmanaged<Slots>.fromOpaque(raw)._withUnsafeGuaranteedRef { slots in
            slots.withUnsafeMutablePointerToElements { body($0 + index) }
        }
    }

    /// Makes `value` the current one. Callers MUST serialize their writes, and never write from inside ``read(_:)``.
    @inlinable
    public func write(_ value: consuming Value) {
        guard let raw = UnsafeRawPointer(bitPattern: slots.load(ordering: .sequentiallyConsistent)) else {
            // The first write: both slots start as `value`, published with the storage.
            let storage = unsafeDowncast(Slots.create(minimumCapacity: 2) { _ in }, to: Slots.self)
            let elements = storage.withUnsafeMutablePointerToElements { $0 }  // stable while `storage` lives
            (elements + 1).initialize(to: copy value)
            elements.initialize(to: value)
            let bits = UInt(bitPattern: Unmanaged.passRetained(storage).toOpaque())
            slots.store(bits, ordering: .sequentiallyConsistent)
            return
        }
        let next = 1 - current.load(ordering: .sequentiallyConsistent)
        let elements = Unmanaged<Slots>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.withUnsafeMutablePointerToElements { $0 } }
        (elements + next).pointee = value
        current.store(next, ordering: .sequentiallyConsistent)
        while readers.load(ordering: .sequentiallyConsistent) != 0 {
            sched_yield()
        }
    }

    deinit {
        // No reader is left: the owner is being destroyed.
        if let raw = UnsafeRawPointer(bitPattern: slots.load(ordering: .acquiring)) {
            Unmanaged<Slots>.fromOpaque(raw).release()
        }
    }
}
