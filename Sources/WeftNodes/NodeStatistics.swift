import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Process-wide counters of layout work, for `weft demo`, `weft bench` and tests.
///
/// Any thread MAY bump or read them at any time. Each thread bumps its own block of atomics (registered on its
/// first bump), so parallel layout never fights over one cache line; a reading sums every thread's block.
public final class NodeStatistics: Sendable {
    public static let shared = NodeStatistics()

    /// The counters, in the order of ``Snapshot``'s fields.
    enum Counter: Int, CaseIterable {
        case cacheHits, cacheMisses, specCalls, measurements, insertions, removals, moves, staleDrops, appliedPasses
    }

    /// One thread's counters.
    final class Block: Sendable {
        let cacheHits = Atomic<Int>(0)
        let cacheMisses = Atomic<Int>(0)
        let specCalls = Atomic<Int>(0)
        let measurements = Atomic<Int>(0)
        let insertions = Atomic<Int>(0)
        let removals = Atomic<Int>(0)
        let moves = Atomic<Int>(0)
        let staleDrops = Atomic<Int>(0)
        let appliedPasses = Atomic<Int>(0)

        @inline(__always)
        func add(_ amount: Int, to counter: Counter) {
            switch counter {
            case .cacheHits: cacheHits.add(amount, ordering: .relaxed)
            case .cacheMisses: cacheMisses.add(amount, ordering: .relaxed)
            case .specCalls: specCalls.add(amount, ordering: .relaxed)
            case .measurements: measurements.add(amount, ordering: .relaxed)
            case .insertions: insertions.add(amount, ordering: .relaxed)
            case .removals: removals.add(amount, ordering: .relaxed)
            case .moves: moves.add(amount, ordering: .relaxed)
            case .staleDrops: staleDrops.add(amount, ordering: .relaxed)
            case .appliedPasses: appliedPasses.add(amount, ordering: .relaxed)
            }
        }

        func value(_ counter: Counter) -> Int {
            switch counter {
            case .cacheHits: cacheHits.load(ordering: .relaxed)
            case .cacheMisses: cacheMisses.load(ordering: .relaxed)
            case .specCalls: specCalls.load(ordering: .relaxed)
            case .measurements: measurements.load(ordering: .relaxed)
            case .insertions: insertions.load(ordering: .relaxed)
            case .removals: removals.load(ordering: .relaxed)
            case .moves: moves.load(ordering: .relaxed)
            case .staleDrops: staleDrops.load(ordering: .relaxed)
            case .appliedPasses: appliedPasses.load(ordering: .relaxed)
            }
        }
    }

    private let blocks = Locked<[Block]>([])
    private let key: pthread_key_t

    private init() {
        var key = pthread_key_t()
        // Blocks stay registered after their thread ends (their counts still count); the key owns nothing.
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// This thread's block, registered on first use.
    @inline(__always)
    private var block: Block {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Block>.fromOpaque(pointer).takeUnretainedValue()
        }
        let block = Block()
        blocks.withLock { $0.append(block) }
        pthread_setspecific(key, Unmanaged.passUnretained(block).toOpaque())
        return block
    }

    @inline(__always)
    func bump(_ counter: Counter, by amount: Int = 1) {
        block.add(amount, to: counter)
    }

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
        var sums = [Int](repeating: 0, count: Counter.allCases.count)
        for block in blocks.withLock({ $0 }) {
            for counter in Counter.allCases { sums[counter.rawValue] += block.value(counter) }
        }
        return Snapshot(
            cacheHits: sums[0], cacheMisses: sums[1], specCalls: sums[2], measurements: sums[3], insertions: sums[4],
            removals: sums[5], moves: sums[6], staleDrops: sums[7], appliedPasses: sums[8])
    }
}
