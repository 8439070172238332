import Synchronization

/// Process-wide counters of layout work, for `weft demo`, `weft bench` and tests.
///
/// Counters are atomics: any thread MAY bump or read them at any time.
public final class NodeStatistics: Sendable {
    public static let shared = NodeStatistics()

    let cacheHits = Atomic<Int>(0)
    let cacheMisses = Atomic<Int>(0)
    let specCalls = Atomic<Int>(0)
    let measurements = Atomic<Int>(0)
    let insertions = Atomic<Int>(0)
    let removals = Atomic<Int>(0)
    let moves = Atomic<Int>(0)
    let staleDrops = Atomic<Int>(0)
    let appliedPasses = Atomic<Int>(0)

    /// A reading of every counter.
    public struct Snapshot: Sendable, Equatable {
        /// Node layouts answered from a node's cache.
        public var cacheHits: Int
        /// Node layouts computed.
        public var cacheMisses: Int
        /// Calls to `layoutSpecThatFits`.
        public var specCalls: Int
        /// Calls to `calculateSizeThatFits` (leaf measurement).
        public var measurements: Int
        /// Subnodes inserted, removed and moved by applied diffs.
        public var insertions: Int
        public var removals: Int
        public var moves: Int
        /// Node updates dropped because a newer version of the node existed when they reached the apply queue.
        public var staleDrops: Int
        /// Layout passes applied on the apply queue.
        public var appliedPasses: Int

        /// The counts between an earlier reading and this one.
        public func subtracting(_ earlier: Snapshot) -> Snapshot {
            Snapshot(
                cacheHits: cacheHits - earlier.cacheHits, cacheMisses: cacheMisses - earlier.cacheMisses,
                specCalls: specCalls - earlier.specCalls, measurements: measurements - earlier.measurements,
                insertions: insertions - earlier.insertions, removals: removals - earlier.removals,
                moves: moves - earlier.moves, staleDrops: staleDrops - earlier.staleDrops,
                appliedPasses: appliedPasses - earlier.appliedPasses)
        }
    }

    public var snapshot: Snapshot {
        Snapshot(
            cacheHits: cacheHits.load(ordering: .relaxed), cacheMisses: cacheMisses.load(ordering: .relaxed),
            specCalls: specCalls.load(ordering: .relaxed), measurements: measurements.load(ordering: .relaxed),
            insertions: insertions.load(ordering: .relaxed), removals: removals.load(ordering: .relaxed),
            moves: moves.load(ordering: .relaxed), staleDrops: staleDrops.load(ordering: .relaxed),
            appliedPasses: appliedPasses.load(ordering: .relaxed))
    }

    @inline(__always)
    func bump(_ counter: borrowing Atomic<Int>, by amount: Int = 1) {
        counter.add(amount, ordering: .relaxed)
    }
}
