import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import WeftSync

/// The one serial queue on which the live node hierarchy changes: Texture's main thread, without UIKit.
///
/// Threading contract:
/// - Hierarchy mutation (subnodes, supernode, applying layouts, diffs and transitions) MUST run here; node
///   methods that mutate check ``isCurrent`` and refuse with ``HierarchyError/offApplyQueue(operation:node:)``.
/// - ``enqueue(_:)`` MAY be called from any thread. Batches run in the order they were queued, each whole, in
///   turns: a turn runs what was queued when it started, until it has run for ``turnBudget``; what is left
///   runs first in the next turn, and work queued during a turn runs after it.
/// - Layout work does not belong here: a turn only swaps finished results in.
public final class ApplyQueue: @unchecked Sendable {
    // @unchecked: mutable state lives in `state` (a Locked) and `group` (thread-safe).

    /// The process-wide apply queue that nodes use.
    public static let main = ApplyQueue(label: "weft.apply")

    /// Timing of the turns run so far.
    public struct Statistics: Sendable {
        /// Turns run.
        public var turns = 0
        /// Batches run.
        public var batches = 0
        /// The longest turn, in seconds.
        public var longest = 0.0
        /// The most processor time one turn took, in seconds: the turn's own work. (A turn's wall time also
        /// counts the time its thread waited for a core, which on a loaded machine can be most of it.)
        public var longestProcessorTime = 0.0
        /// The total time spent in turns, in seconds.
        public var total = 0.0
        /// Durations of the most recent turns (up to 4,096), in seconds, oldest first.
        public var recent: [Double] = []

        /// The median of ``recent``, in seconds (0 before the first turn).
        public var median: Double {
            guard !recent.isEmpty else { return 0 }
            let sorted = recent.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
    }

    private struct State {
        var pending: [@Sendable () -> Void] = []
        var turnScheduled = false
        /// Everything but `recent`, which is kept as a ring and put in order when read.
        var statistics = Statistics()
        var ring: [Double] = []
        var ringNext = 0
    }

    /// How many recent turn durations are kept.
    private static let recentCapacity = 4096

    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<UInt8>()
    private let state = Locked(State())
    /// Work in flight that will end in this queue: queued batches, and background layout that will queue one.
    private let inFlight = DispatchGroup()
    /// See ``turnBudget``, in nanoseconds.
    private let budgetNanoseconds = Atomic<UInt64>(4_000_000)
    /// See ``turnStart`` (written by this queue only).
    private let turnStartTime = Atomic<UInt64>(0)

    public init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInteractive)
        queue.setSpecific(key: key, value: 1)
    }

    /// Whether the caller is running on this queue.
    public var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }

    /// Queues `batch` to run in the next turn. MAY be called from any thread, including this queue.
    public func enqueue(_ batch: @escaping @Sendable () -> Void) {
        inFlight.enter()
        let schedule = state.withLock { state -> Bool in
            state.pending.append(batch)
            if state.turnScheduled { return false }
            state.turnScheduled = true
            return true
        }
        if schedule {
            queue.async { self.runTurn() }
        }
    }

    /// How long one turn may run batches, in seconds (default 0.004: a quarter of a 60 Hz frame). A turn
    /// always runs at least one batch, and a batch is never split: a turn overruns by at most its last batch.
    /// The batches left go first in the next turn. A value that is not a number above 0 means one batch per
    /// turn; an infinite one, no limit.
    public var turnBudget: Double {
        get { Double(budgetNanoseconds.load(ordering: .relaxed)) / 1e9 }
        set {
            let nanoseconds: UInt64 = newValue > 0 ? (newValue < 1e9 ? UInt64(newValue * 1e9) : .max) : 0
            budgetNanoseconds.store(nanoseconds, ordering: .relaxed)
        }
    }

    private func runTurn() {
        var batches = state.withLock { state -> [@Sendable () -> Void] in
            state.turnScheduled = false
            defer { state.pending.removeAll() }
            return state.pending
        }
        let processorStart = Self.threadProcessorTime()
        let start = DispatchTime.now().uptimeNanoseconds
        let budget = budgetNanoseconds.load(ordering: .relaxed)
        turnStartTime.store(start, ordering: .relaxed)
        var ran = 0
        while ran < batches.count {
            batches[ran]()
            ran += 1
            if ran < batches.count && DispatchTime.now().uptimeNanoseconds - start >= budget { break }
        }
        turnStartTime.store(0, ordering: .relaxed)
        if ran < batches.count {
            // The rest go first in the next turn, before anything queued since.
            let rest = batches[ran...]
            let schedule = state.withLock { state -> Bool in
                state.pending.insert(contentsOf: rest, at: 0)
                if state.turnScheduled { return false }
                state.turnScheduled = true
                return true
            }
            if schedule { queue.async { self.runTurn() } }
            batches.removeSubrange(ran...)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let processorSeconds = Self.threadProcessorTime() - processorStart
        state.withLock { state in
            state.statistics.longestProcessorTime = max(state.statistics.longestProcessorTime, processorSeconds)
            state.statistics.turns += 1
            state.statistics.batches += batches.count
            state.statistics.longest = max(state.statistics.longest, seconds)
            state.statistics.total += seconds
            if state.ring.count < Self.recentCapacity {
                state.ring.append(seconds)
            } else {
                state.ring[state.ringNext] = seconds
            }
            state.ringNext = (state.ringNext + 1) % Self.recentCapacity
        }
        for _ in batches { inFlight.leave() }
    }

    /// The processor time the calling thread has used, in seconds (0 where it cannot be read).
    private static func threadProcessorTime() -> Double {
        #if canImport(Glibc)
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        #else
        return 0
        #endif
    }

    /// When the turn now running started (`DispatchTime` uptime nanoseconds), for work that keeps to a budget
    /// per turn; 0 outside a turn (a `sync` block). Read it on this queue.
    public var turnStart: UInt64 { turnStartTime.load(ordering: .relaxed) }

    /// Batches queued and not yet run.
    public var pendingBatches: Int { state.withLock { $0.pending.count } }

    /// Timing of the turns so far.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.recent = state.ring.count < Self.recentCapacity
                ? state.ring : Array(state.ring[state.ringNext...] + state.ring[..<state.ringNext])
            return statistics
        }
    }

    /// Forgets the timing collected so far.
    public func resetStatistics() {
        state.withLock { state in
            state.statistics = Statistics()
            state.ring = []
            state.ringNext = 0
        }
    }

    /// Marks background work that will end by queueing a batch here (so that ``settle(timeout:)`` waits).
    public func beginWork() {
        inFlight.enter()
    }

    /// Ends work registered with ``beginWork()`` (after it queued its batch, or gave up).
    public func endWork() {
        inFlight.leave()
    }

    /// Waits until no background layout is in flight and every queued batch has run.
    ///
    /// MUST NOT be called on this queue (it would wait for itself): that is refused. Returns false if
    /// `timeout` (seconds) passed first.
    @discardableResult
    public func settle(timeout: Double = 60) throws(HierarchyError) -> Bool {
        if isCurrent { throw HierarchyError.onApplyQueue(operation: "settle") }
        return inFlight.wait(timeout: .now() + timeout) == .success
    }

    /// Runs `body` on this queue and waits for it: for tests, tools and start-up. Runs it in place when called
    /// on this queue.
    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        return try queue.sync(execute: body)
    }
}
