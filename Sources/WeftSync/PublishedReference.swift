// The project's second concurrency primitive: object references that readers load with no lock.
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

/// A reference back to an owner from what it holds (a node's subnodes to the node), which does not keep the
/// owner alive and gives readers a strong reference, or nil once the owner's deinit has begun: what a weak
/// reference does, without the side table a weak reference gives its object (which makes every retain and
/// release of the object the runtime's slow kind, and costs an allocation when the first weak reference to it
/// is made).
///
/// How: it holds the owner unowned, which keeps the owner's memory (not the owner: its deinit runs when its
/// last strong reference goes) until this reference goes away, and never reads that unowned reference (which
/// would trap once the owner is gone). A reader retains the owner at its address with the runtime's try-retain,
/// which fails once the owner's deinit has begun: the memory it looks at is still the owner's, so there is
/// nothing to wait for and nothing the owner must do when it goes. Releasing an owner's last reference is safe
/// anywhere, under any lock. The cost of a gone owner is its instance's memory (its stored properties are
/// destroyed with it), until the last reference back to it goes. `Object` MUST be a native Swift class.
public final class BackReference<Object: AnyObject & Sendable>: Sendable {
    /// The owner, unowned: never read (see above). Its memory is what makes `address` safe to try.
    @usableFromInline unowned let owner: Object
    /// The owner's address.
    @usableFromInline let address: UInt

    /// A reference back to `owner` (an owner keeps one in a ``BackReferenceSlot``, made when first asked for).
    public init(_ owner: Object) {
        self.owner = owner
        address = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
    }

    /// The owner, retained; nil once its deinit has begun.
    @inlinable
    public var object: Object? {
        guard let pointer = UnsafeMutableRawPointer(bitPattern: address), weft_try_retain(pointer) else { return nil }
        return Unmanaged<Object>.fromOpaque(pointer).takeRetainedValue()
    }

    /// Whether this refers back to `candidate` (which the caller holds): compared, not retained. (While this
    /// reference exists, no other object can live at its owner's address.)
    @inlinable
    public func refers(to candidate: Object) -> Bool {
        address == UInt(bitPattern: Unmanaged.passUnretained(candidate).toOpaque())
    }
}

/// Where an owner keeps its ``BackReference``, made the first time one is asked for (by a compare-and-swap: two
/// threads asking at once get the same one), and let go of with the owner. (Inlinable, unlike the standard
/// library's `AtomicLazyReference`, whose unspecialized calls looked the reference's metadata up every time.)
public struct BackReferenceSlot<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The back reference, retained (0: none yet).
    @usableFromInline let bits = Atomic<UInt>(0)

    @inlinable
    public init() {}

    /// The owner's back reference (`owner` MUST be the object that holds this slot).
    @inlinable
    public func reference(to owner: Object) -> BackReference<Object> {
        if let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) {
            return Unmanaged<BackReference<Object>>.fromOpaque(pointer).takeUnretainedValue()
        }
        let made = BackReference(owner)
        let retained = Unmanaged.passRetained(made)
        let (stored, found) = bits.compareExchange(
            expected: 0, desired: UInt(bitPattern: retained.toOpaque()), ordering: .acquiringAndReleasing)
        guard !stored, let pointer = UnsafeRawPointer(bitPattern: found) else { return made }
        // Another thread made one first: that one is the owner's.
        retained.release()
        return Unmanaged<BackReference<Object>>.fromOpaque(pointer).takeUnretainedValue()
    }

    deinit {
        if let pointer = UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)) {
            Unmanaged<BackReference<Object>>.fromOpaque(pointer).release()
        }
    }
}
