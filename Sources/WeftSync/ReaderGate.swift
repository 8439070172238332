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
