import CWeftThread
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
