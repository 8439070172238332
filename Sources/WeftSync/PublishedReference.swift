import CWeftThread
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
/// Reclamation: a reader counts itself in at a ``ReaderGate`` before it loads the pointer and out after it is
/// done; a writer exchanges the pointer, then waits at the gate for the readers that were inside before it
/// (see there) before releasing the old object. So a reader either counted itself in before the exchange (and
/// the writer waits for it), or loads the pointer after the exchange (and never sees the old object). Readers
/// never wait. A writer waits only for reads under way (a few loads and compares: ``withCurrent(_:)``'s body
/// must not block, publish, or call user code); it yields its thread while it waits.
public struct PublishedReference<Object: AnyObject & Sendable>: ~Copyable, @unchecked Sendable {
    // @unchecked: the pointer is an Atomic and the object it names is immutable and Sendable; the gate keeps it
    // alive while it is read.
    @usableFromInline let bits = Atomic<UInt>(0)
    @usableFromInline let gate = ReaderGate()

    @inlinable
    public init() {}

    /// Calls `body` with the current object (nil if none was published), valid only during the call.
    @inlinable @inline(__always)
    public func withCurrent<Result>(_ body: (Object?) -> Result) -> Result {
        let unit = gate.enter()
        defer { gate.leave(unit) }
        let current = bits.load(ordering: .sequentiallyConsistent)
        guard let pointer = UnsafeRawPointer(bitPattern: current) else { return body(nil) }
        return Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef { body($0) }
    }

    /// Makes `object` the current one (nil: none). Never call it from inside ``withCurrent(_:)``.
    @inlinable
    public func publish(_ object: Object?) {
        // The object replaced is released here, once no reader can still be using it.
        _ = replace(with: object.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0)
    }

    /// Makes the object at `new` (retained for this reference; 0: none) the current one; returns the one it
    /// replaced once no reader can still be using it.
    @usableFromInline
    func replace(with new: UInt) -> Object? {
        let old = bits.exchange(new, ordering: .sequentiallyConsistent)
        guard let pointer = UnsafeRawPointer(bitPattern: old) else { return nil }
        // Publishers on several threads at once take turns at the gate.
        gate.waitForEarlierReaders(writersSerialized: false)
        return Unmanaged<Object>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Whether an object is current (a relaxed load: for its owner's deinit, when no other thread can publish).
    @inlinable
    public var isSet: Bool { bits.load(ordering: .relaxed) != 0 }

    /// Takes the current object out (none is current afterwards): returned once no reader can still be using
    /// it, for the caller to release. Never call it from inside ``withCurrent(_:)``.
    public func take() -> Object? {
        replace(with: 0)
    }

    deinit {
        // No reader is left: the owner is being destroyed.
        if let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) {
            Unmanaged<Object>.fromOpaque(pointer).release()
        }
    }
}
