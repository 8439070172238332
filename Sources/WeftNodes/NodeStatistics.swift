import CWeftThread
import Synchronization
import WeftLayout
import WeftText
import WeftSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Counters of a layout context's work, for `weft demo`, `weft bench` and tests.
///
/// Any thread MAY bump or read them at any time. Each thread bumps its own block of atomics (registered on its
/// first bump), so parallel layout never fights over one cache line and a bump needs no locked instruction; a
/// reading sums every thread's block.
/// Layout computations count in their builder and add the counts here once (``add(_:)``).
public final class NodeStatistics: Sendable {
    /// The statistics of ``LayoutContext/default``.
    public static let shared = NodeStatistics()

    /// The counters, in the order of ``Snapshot``'s fields.
    enum Counter: Int, CaseIterable {
        case cacheHits, cacheMisses, specCalls, measurements, insertions, removals, moves, staleDrops, appliedPasses
    }

    /// One thread's counters.
    final class Block: Sendable {
        /// The thread that bumps it (``weft_thread_token()``: unique among live threads).
        let owner: UInt
        let cacheHits = Atomic<Int>(0)
        let cacheMisses = Atomic<Int>(0)
        let specCalls = Atomic<Int>(0)
        let measurements = Atomic<Int>(0)
        let insertions = Atomic<Int>(0)
        let removals = Atomic<Int>(0)
        let moves = Atomic<Int>(0)
        let staleDrops = Atomic<Int>(0)
        let appliedPasses = Atomic<Int>(0)

        init(owner: UInt) {
            self.owner = owner
        }

        /// Adds `amount` to `counter`. Only the block's own thread writes it (a thread that reuses an ended
        /// thread's token takes over its block after it ended), so this is a load and a store, not a locked
        /// read-modify-write: readers on other threads see each store whole, and no write is lost.
        @inline(__always)
        func add(_ amount: Int, to counter: Counter) {
            switch counter {
            case .cacheHits: Self.increase(cacheHits, by: amount)
            case .cacheMisses: Self.increase(cacheMisses, by: amount)
            case .specCalls: Self.increase(specCalls, by: amount)
            case .measurements: Self.increase(measurements, by: amount)
            case .insertions: Self.increase(insertions, by: amount)
            case .removals: Self.increase(removals, by: amount)
            case .moves: Self.increase(moves, by: amount)
            case .staleDrops: Self.increase(staleDrops, by: amount)
            case .appliedPasses: Self.increase(appliedPasses, by: amount)
            }
        }

        @inline(__always)
        private static func increase(_ counter: borrowing Atomic<Int>, by amount: Int) {
            counter.store(counter.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
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
    /// The text measurers whose shaped-run caches the snapshots count (``trackTextCache(of:)``).
    private let textCaches = Locked<[FontMeasurer]>([])
    /// Tells this instance's blocks apart in each thread's table (object identifiers of freed objects are
    /// reused; these never are).
    private let id = NodeStatistics.nextID.add(1, ordering: .relaxed).oldValue

    private static let nextID = Atomic<UInt64>(1)

    public init() {}

    /// This thread's block, registered on first use; remembered in the thread's slot as its last.
    private var block: Block {
        if let pointer = blockInSlot { return Unmanaged<Block>.fromOpaque(pointer).takeUnretainedValue() }
        let table = ThreadBlocks.current
        let block: Block
        if let known = table.block(for: id) {
            block = known
        } else {
            // This thread's block of this instance if it had one (its table was emptied since, or the thread that
            // had it ended), so that an instance keeps one block per thread however often tables are emptied.
            let owner = UInt(weft_thread_token())
            block = blocks.withLock { all in
                if let mine = all.first(where: { $0.owner == owner }) { return mine }
                let new = Block(owner: owner)
                all.append(new)
                return new
            }
            table.insert(block, for: id)
        }
        weft_thread_remember_statistics(id, Unmanaged.passUnretained(block).toOpaque())
        return block
    }

    /// This thread's block of this instance, if the thread's slot names it (unretained).
    @inline(__always)
    private var blockInSlot: UnsafeMutableRawPointer? {
        weft_thread_statistics_id() == id ? weft_thread_statistics_block() : nil
    }

    @inline(__always)
    func bump(_ counter: Counter, by amount: Int = 1) {
        // The common case: this thread's last block is this instance's (read from the thread's slot, no retain).
        if let pointer = blockInSlot {
            Unmanaged<Block>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.add(amount, to: counter) }
            return
        }
        block.add(amount, to: counter)
    }

    /// How many threads' blocks this instance holds (one per thread that counted in it).
    var blockCount: Int { blocks.withLock { $0.count } }

    /// Adds the counts of one layout computation.
    func add(_ counters: LayoutCounters) {
        let block = self.block
        if counters.cacheHits != 0 { block.add(counters.cacheHits, to: .cacheHits) }
        if counters.cacheMisses != 0 { block.add(counters.cacheMisses, to: .cacheMisses) }
        if counters.specCalls != 0 { block.add(counters.specCalls, to: .specCalls) }
        if counters.measurements != 0 { block.add(counters.measurements, to: .measurements) }
    }

    /// Adds what applying one pass did (one lookup of this thread's counters for all of it).
    func addApplied(insertions: Int, removals: Int, moves: Int, staleDrops: Int) {
        let block = self.block
        if insertions != 0 { block.add(insertions, to: .insertions) }
        if removals != 0 { block.add(removals, to: .removals) }
        if moves != 0 { block.add(moves, to: .moves) }
        if staleDrops != 0 { block.add(staleDrops, to: .staleDrops) }
        block.add(1, to: .appliedPasses)
    }

    /// Counts `measurer`'s shaped-run cache in this instance's snapshots (``Snapshot/textCacheHits`` and
    /// ``Snapshot/textCacheMisses``): the measurer's own counts, so the work of every tree that shares it. Track
    /// each measurer once. ``shared`` tracks ``TextNode/standardMeasurer`` from its first use.
    public func trackTextCache(of measurer: FontMeasurer) {
        textCaches.withLock { $0.append(measurer) }
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
        /// Texts (and truncation tokens) measured with their shaping found in a tracked measurer's cache
        /// (``trackTextCache(of:)``): only lines were broken.
        public var textCacheHits = 0
        /// Texts (and truncation tokens) that were shaped: the cache missed.
        public var textCacheMisses = 0

        /// The counts between an earlier reading and this one.
        public func subtracting(_ earlier: Snapshot) -> Snapshot {
            Snapshot(
                cacheHits: cacheHits - earlier.cacheHits, cacheMisses: cacheMisses - earlier.cacheMisses,
                specCalls: specCalls - earlier.specCalls, measurements: measurements - earlier.measurements,
                insertions: insertions - earlier.insertions, removals: removals - earlier.removals,
                moves: moves - earlier.moves, staleDrops: staleDrops - earlier.staleDrops,
                appliedPasses: appliedPasses - earlier.appliedPasses,
                textCacheHits: textCacheHits - earlier.textCacheHits, textCacheMisses: textCacheMisses - earlier.textCacheMisses)
        }
    }

    public var snapshot: Snapshot {
        var sums = [Int](repeating: 0, count: Counter.allCases.count)
        for block in blocks.withLock({ $0 }) {
            for counter in Counter.allCases { sums[counter.rawValue] += block.value(counter) }
        }
        var (textHits, textMisses) = (0, 0)
        for measurer in textCaches.withLock({ $0 }) {
            let counts = measurer.cacheStatistics
            textHits += counts.hits
            textMisses += counts.misses
        }
        return Snapshot(
            cacheHits: sums[0], cacheMisses: sums[1], specCalls: sums[2], measurements: sums[3], insertions: sums[4],
            removals: sums[5], moves: sums[6], staleDrops: sums[7], appliedPasses: sums[8],
            textCacheHits: textHits, textCacheMisses: textMisses)
    }
}

/// Each thread's blocks, one per statistics instance it counted in (a few: one per context). A lookup compares
/// identifiers only; identifiers are never reused, so an entry of a statistics instance that is gone is never
/// found. The table holds no reference to the statistics themselves (a weak one would give each instance a side
/// table, and every retain of it would take the slow path); when it reaches ``limit`` entries it is emptied, and
/// the thread looks its blocks up in their instances again on its next bump (an instance keeps one per thread).
/// The thread's slot (`weft_thread_remember_statistics`) names the last block looked up, unretained: the table
/// holds every block the slot can name.
private final class ThreadBlocks {
    private var ids: [UInt64] = []
    private var blocks: [NodeStatistics.Block] = []

    static let limit = 32

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // The slot must not name a block of the table let go here (this runs on the exiting thread).
            weft_thread_remember_statistics(0, nil)
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        return key
    }()

    /// This thread's table (only this thread touches it).
    static var current: ThreadBlocks {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadBlocks>.fromOpaque(pointer).takeUnretainedValue()
        }
        let table = ThreadBlocks()
        pthread_setspecific(key, Unmanaged.passRetained(table as AnyObject).toOpaque())
        return table
    }

    func block(for id: UInt64) -> NodeStatistics.Block? {
        guard let index = ids.firstIndex(of: id) else { return nil }
        return blocks[index]
    }

    func insert(_ block: NodeStatistics.Block, for id: UInt64) {
        if ids.count >= Self.limit {
            ids.removeAll()
            blocks.removeAll()
        }
        ids.append(id)
        blocks.append(block)
    }
}
