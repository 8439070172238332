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

/// Readers counted in two halves, for the reclamation of ``PublishedReference`` and ``SlotPair``: a writer that has
/// replaced what readers load waits for the readers that may still use the old one, and only for those.
///
/// A reader counts itself in (``enter()``) before it loads what the gate protects, and out (``leave(_:)``) when it is
/// done. It counts itself in the half the gate names at that moment. A writer replaces what readers load, then calls
/// ``waitForEarlierReaders(writersSerialized:)``: it names the other half for new readers and waits until the first
/// half is empty, then names the first half again and waits until the second is empty. The counts, the writer's write
/// and the reader's load are sequentially consistent, so a reader that can still see the old value counted itself in
/// before the replacement, and one of the two waits waits for it, whichever half it is in. New readers count themselves
/// in the half that is not being waited for, so a steady stream of readers (each overlapping the next, so that one
/// count of every reader would never reach zero) cannot keep a writer waiting: each wait lasts as long as the reads
/// that were under way when it began; writers that come at once take turns. Readers never wait. Which half a reader
/// counts in only decides how long a writer waits, not whether it waits for that reader.
public struct ReaderGate: ~Copyable, Sendable {
    /// Readers inside: the low 32 bits count half 0, the high 32 bits half 1. (First: next to what an owner
    /// declares before the gate, such as a published reference's pointer, on one cache line.)
    @usableFromInline let counts = Atomic<UInt64>(0)
    /// The half new readers count themselves in (0 or 1).
    @usableFromInline let half = Atomic<UInt32>(0)
    /// Writers' turns when the owner does not serialize them: the next ticket, and the ticket being served.
    @usableFromInline let nextTicket = Atomic<UInt32>(0)
    @usableFromInline let serving = Atomic<UInt32>(0)

    @inlinable
    public init() {}

    /// Counts a reader in, before it loads what the gate protects; returns what ``leave(_:)`` takes. (Which half
    /// only matters for how long a writer waits, not for safety: relaxed.)
    @inlinable @inline(__always)
    public func enter() -> UInt64 {
        let unit: UInt64 = half.load(ordering: .relaxed) == 0 ? 1 : 1 << 32
        counts.wrappingAdd(unit, ordering: .sequentiallyConsistent)
        return unit
    }

    /// Counts a reader out (`unit`: what its ``enter()`` returned).
    @inlinable @inline(__always)
    public func leave(_ unit: UInt64) {
        counts.wrappingSubtract(unit, ordering: .sequentiallyConsistent)
    }

    /// Waits until every reader that entered before this call has left; readers that enter meanwhile are not
    /// waited for (beyond the ones under way when a half is switched). Call it after a sequentially consistent
    /// write of what readers load. `writersSerialized`: whether the owner lets one writer at a time here (a lock
    /// it holds); if not, writers take turns, first come first served. (Two writers switching halves under each
    /// other's feet could leave one waiting for the half that new readers count in, for as long as they keep
    /// coming.) Never call it between a reader's ``enter()`` and ``leave(_:)`` on the same thread.
    public func waitForEarlierReaders(writersSerialized: Bool) {
        var ticket: UInt32 = 0
        if !writersSerialized {
            ticket = nextTicket.wrappingAdd(1, ordering: .acquiring).oldValue
            while serving.load(ordering: .acquiring) != ticket { sched_yield() }
        }
        let first = half.load(ordering: .relaxed)
        half.store(1 - first, ordering: .releasing)
        drain(first)
        half.store(first, ordering: .releasing)
        drain(1 - first)
        if !writersSerialized { serving.store(ticket &+ 1, ordering: .releasing) }
    }

    private func drain(_ which: UInt32) {
        let shift: UInt64 = which == 0 ? 0 : 32
        while (counts.load(ordering: .sequentiallyConsistent) >> shift) & 0xFFFF_FFFF != 0 {
            sched_yield()
        }
    }
}

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

/// The protocol of a value published in two slots that writers alternate between, for readers that take no
/// lock: the same reclamation as ``PublishedReference`` (readers count themselves in at a ``ReaderGate``; a
/// writer switches slots, then waits for the readers that were inside), without an allocation per write. The
/// owner keeps the two slots (at a stable address, such as a `Locked` value's storage); this holds which one is
/// current, and the gate.
///
/// Writers MUST be serialized by the owner (a lock they hold while writing). A writer assigns the slot that is
/// not current (``slotToWrite``), then ``publish(_:)``es it: no reader can be in that slot, since the writer
/// that last switched away from it waited for every reader that could have loaded it. Readers never wait; a
/// writer waits only for reads under way.
public struct SlotPair: ~Copyable, Sendable {
    @usableFromInline let current = Atomic<Int>(0)
    @usableFromInline let gate = ReaderGate()

    @inlinable
    public init() {}

    /// Calls `body` with the index of the current slot (0 or 1); `body` must only read that slot, and must not
    /// block, write, or call user code.
    @inlinable @inline(__always)
    public func read<Result>(_ body: (Int) -> Result) -> Result {
        let unit = gate.enter()
        defer { gate.leave(unit) }
        return body(current.load(ordering: .sequentiallyConsistent))
    }

    /// The slot a writer assigns next (the one that is not current). Writers only.
    @inlinable
    public var slotToWrite: Int { 1 - current.load(ordering: .sequentiallyConsistent) }

    /// Makes `slot` (just assigned) the current one, and waits until no reader that could have loaded the other
    /// is left in it. Writers only; never from inside ``read(_:)``.
    @inlinable
    public func publish(_ slot: Int) {
        current.store(slot, ordering: .sequentiallyConsistent)
        gate.waitForEarlierReaders(writersSerialized: true)
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
