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
        readers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { readers.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
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

/// The protocol of a value published in two slots that writers alternate between, for readers that take no
/// lock: the same reclamation as ``PublishedReference`` (readers count themselves in; a writer switches slots,
/// then waits until no reader is inside), without an allocation per write. The owner keeps the two slots
/// (at a stable address, such as a `Locked` value's storage); this holds which one is current and the count of
/// readers inside.
///
/// Writers MUST be serialized by the owner (a lock they hold while writing). A writer assigns the slot that is
/// not current (``slotToWrite``), then ``publish(_:)``es it: no reader can be in that slot, since the writer
/// that last switched away from it waited for every reader inside. Readers never wait; a writer waits only for
/// readers already inside ``read(_:)``.
public struct SlotPair: ~Copyable, Sendable {
    @usableFromInline let current = Atomic<Int>(0)
    @usableFromInline let readers = Atomic<Int>(0)

    @inlinable
    public init() {}

    /// Calls `body` with the index of the current slot (0 or 1); `body` must only read that slot, and must not
    /// block, write, or call user code.
    @inlinable @inline(__always)
    public func read<Result>(_ body: (Int) -> Result) -> Result {
        readers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { readers.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        return body(current.load(ordering: .sequentiallyConsistent))
    }

    /// The slot a writer assigns next (the one that is not current). Writers only.
    @inlinable
    public var slotToWrite: Int { 1 - current.load(ordering: .sequentiallyConsistent) }

    /// Makes `slot` (just assigned) the current one, and waits until no reader is left in the other. Writers only;
    /// never from inside ``read(_:)``.
    @inlinable
    public func publish(_ slot: Int) {
        current.store(slot, ordering: .sequentiallyConsistent)
        while readers.load(ordering: .sequentiallyConsistent) != 0 {
            sched_yield()
        }
    }
}
