import Dispatch
import WeftFeed
import WeftLayout
import WeftNodes

/// One measured scenario: its name, the unit its per-item time is given in, and its timings.
public struct ScenarioResult: Sendable {
    public var id: String
    public var name: String
    /// What one item is ("cell", "node").
    public var unit: String
    /// Items per run.
    public var items: Int
    /// Seconds per run, one entry per repetition.
    public var runs: [Double]
    /// A figure the scenario reports beside its time (the speedup, a commit time...).
    public var extra: [String: Double] = [:]

    public var median: Double {
        let sorted = runs.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Seconds per item (median run).
    public var perItem: Double { median / Double(max(items, 1)) }
}

/// Times `body` `repetitions` times after one warm-up, each time after `setup` (not timed).
public func measure<State>(
    repetitions: Int, setup: () throws -> State, _ body: (inout State) throws -> Void
) rethrows -> [Double] {
    var state = try setup()
    try body(&state)
    var runs: [Double] = []
    for _ in 0..<repetitions {
        var state = try setup()
        let start = DispatchTime.now().uptimeNanoseconds
        try body(&state)
        runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        withExtendedLifetime(state) {}
    }
    return runs
}

/// The scenarios of `weft bench` and of the Benchmarks package, over identical trees.
public enum Scenarios {
    /// 1: the photo cell laid out cold, each cell alone, as a bare spec tree.
    public static func coldSpec(cells: Int, repetitions: Int) throws -> ScenarioResult {
        var builder = LayoutBuilder()
        let runs = try measure(repetitions: repetitions, setup: { (0..<cells).map { _ in BenchmarkCell.specTree() } }) { trees in
            for tree in trees {
                let layout = try Layout.compute(tree, in: BenchmarkCell.range, using: &builder)
                precondition(layout.size == BenchmarkCell.expectedSize, "the benchmark cell came out \(layout.size)")
            }
        }
        return ScenarioResult(id: "1-spec-\(cells)", name: "photo cell cold, spec tree, \(cells) cells", unit: "cell", items: cells, runs: runs)
    }

    /// 1: the photo cell laid out cold as a node tree with automatic subnode management: the spec is built by
    /// `layoutSpecThatFits`, and the layout pass computes the cell's subnodes and their diff.
    public static func coldNodes(cells: Int, repetitions: Int) throws -> ScenarioResult {
        let runs = try measure(repetitions: repetitions, setup: { (0..<cells).map { _ in BenchmarkCellNode() } }) { nodes in
            for node in nodes {
                let pass = try LayoutPass.compute(root: node, range: BenchmarkCell.range)
                precondition(pass.rootLayout.size == BenchmarkCell.expectedSize)
            }
        }
        return ScenarioResult(id: "1-nodes-\(cells)", name: "photo cell cold, node tree (ASM), \(cells) cells", unit: "cell", items: cells, runs: runs)
    }

    /// 2: the hand-written layout of the same cell.
    public static func handWritten(cells: Int, repetitions: Int) -> ScenarioResult {
        let frames = UnsafeMutablePointer<Rect>.allocate(capacity: 12)
        defer { frames.deallocate() }
        frames.initialize(repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: 12)
        let runs = measure(repetitions: repetitions, setup: { () }) { _ in
            for _ in 0..<cells {
                BenchmarkCell.handLayout(width: 375, into: frames)
            }
        }
        precondition(frames[0].size == BenchmarkCell.expectedSize)
        return ScenarioResult(id: "2-hand", name: "photo cell, hand-written layout", unit: "cell", items: cells, runs: runs)
    }

    /// Cells laid out once and applied (so their leaves are subnodes: a leaf's `setNeedsLayout` reaches its
    /// cell), ready for relayout scenarios.
    public static func laidOutCells(_ count: Int) throws -> [BenchmarkCellNode] {
        let nodes = (0..<count).map { _ in BenchmarkCellNode() }
        let passes = try nodes.map { try LayoutPass.compute(root: $0, range: BenchmarkCell.range) }
        try ApplyQueue.main.sync {
            for pass in passes { try pass.apply() }
        }
        return nodes
    }

    /// 3: relayout of laid-out, unchanged cells: every one a cache hit.
    public static func relayoutUnchanged(cells: Int, repetitions: Int) throws -> ScenarioResult {
        let nodes = try laidOutCells(cells)
        let runs = try measure(repetitions: repetitions, setup: { () }) { _ in
            for node in nodes { _ = try node.layoutThatFits(BenchmarkCell.range) }
        }
        return ScenarioResult(id: "3-unchanged", name: "relayout, unchanged (cache hits), \(cells) cells", unit: "cell", items: cells, runs: runs)
    }

    /// 4: relayout after one leaf changed size, in one cell or in every cell.
    public static func relayoutChanged(cells: Int, everyCell: Bool, repetitions: Int) throws -> ScenarioResult {
        let nodes = try laidOutCells(cells)
        var flip = false
        let runs = try measure(repetitions: repetitions, setup: {
            flip.toggle()
            let width = flip ? 100.0 : 90.0
            for node in everyCell ? nodes : [nodes[cells / 2]] {
                node.location.style = LayoutStyle(preferredSize: Size(width, 15))
                node.location.setNeedsLayout()
            }
        }) { _ in
            for node in nodes { _ = try node.layoutThatFits(BenchmarkCell.range) }
        }
        let which = everyCell ? "every cell" : "one cell"
        return ScenarioResult(id: everyCell ? "4-every" : "4-one", name: "relayout, one leaf changed in \(which), \(cells) cells",
                              unit: "cell", items: cells, runs: runs)
    }

    /// 5: the stress trees laid out cold.
    public static func stress(_ which: String, repetitions: Int) throws -> ScenarioResult {
        let make: () -> (any LayoutElement, SizeRange)
        switch which {
        case "wide": make = { let (row, range) = StressTrees.wide(); return (row, range) }
        case "deep": make = { StressTrees.deep() }
        default: make = { StressTrees.hugeNested() }
        }
        let nodes = StressTrees.count(make().0)
        var builder = LayoutBuilder()
        let runs = try measure(repetitions: repetitions, setup: make) { tree in
            _ = try Layout.compute(tree.0, in: tree.1, using: &builder)
        }
        let names = ["wide": "wide: one row of 10,000 growing children", "deep": "deep: 1,000 nested stacks",
                     "huge": "huge nested: 4 levels of 10 (11,111 nodes)"]
        return ScenarioResult(id: "5-\(which)", name: names[which] ?? which, unit: "node", items: nodes, runs: runs)
    }

    /// 6: photo cells laid out (node trees, a layout pass each) on each number of threads in `threads`; each
    /// result after the first has its speedup over the first (run `threads` from 1 for the speedup over one).
    public static func parallelFeed(cells: Int, threads: [Int], repetitions: Int) throws -> [ScenarioResult] {
        var results: [ScenarioResult] = []
        for count in threads {
            let runs = try measure(repetitions: repetitions, setup: { (0..<cells).map { _ in BenchmarkCellNode() } }) { nodes in
                let captured = nodes
                try Parallel.run(threads: count, count: captured.count) { range in
                    for i in range { _ = try LayoutPass.compute(root: captured[i], range: BenchmarkCell.range) }
                }
            }
            var result = ScenarioResult(
                id: "6-parallel-\(count)", name: "feed layout, \(cells) cells on \(count) thread\(count == 1 ? "" : "s")",
                unit: "cell", items: cells, runs: runs)
            result.extra["threads"] = Double(count)
            if let first = results.first {
                result.extra["baseThreads"] = first.extra["threads"]
                result.extra["speedup"] = first.median / result.median
            }
            results.append(result)
        }
        return results
    }

    /// 7: insert 100 cells into a 10,000-cell feed; the apply-queue time of the commit.
    public static func batchInsert(existing: Int, inserted: Int, repetitions: Int) throws -> ScenarioResult {
        let fixture = try BatchInsertFixture(existing: existing)
        var commits: [Double] = []
        var totals: [Double] = []
        for _ in 0..<(repetitions + 1) {
            let start = DispatchTime.now().uptimeNanoseconds
            let summary = try fixture.insert(inserted)
            totals.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            commits.append(summary.commitSeconds)
        }
        commits.removeFirst()
        totals.removeFirst()
        var result = ScenarioResult(id: "7-insert", name: "batch insert of \(inserted) cells into \(existing)", unit: "cell",
                                    items: inserted, runs: commits)
        result.extra["commitSeconds"] = result.median
        result.extra["totalSeconds"] = ScenarioResult(id: "", name: "", unit: "", items: 1, runs: totals).median
        return result
    }
}

extension Scenarios {
    /// 7b: `reloadData` of a feed of `cells` benchmark cells, in a context of its own: the commit's turn, the
    /// turns before it that put the new cells in place, and the longest turn of the apply queue.
    public static func reload(cells: Int, repetitions: Int) throws -> ScenarioResult {
        var commits: [Double] = []
        var extra: [String: Double] = [:]
        for _ in 0..<(repetitions + 1) {
            let queue = ApplyQueue(label: "bench.reload")
            let source = BenchmarkSource(count: cells)
            let feed = FeedNode(dataSource: source, width: 375, viewportHeight: 667,
                                context: LayoutContext(applyQueue: queue))
            let done = DispatchSemaphore(value: 0)
            let summary = Guarded<BatchUpdateSummary?>(nil)
            try feed.reloadData { committed in
                summary.withLock { $0 = committed }
                done.signal()
            }
            done.wait()
            guard let committed = summary.withLock({ $0 }) else { throw BenchmarkError("the reload never committed") }
            commits.append(committed.commitSeconds)
            let longest = queue.statistics.longest
            extra["longestTurnSeconds"] = max(extra["longestTurnSeconds"] ?? 0, longest)
            extra["preparationSeconds"] = committed.preparationSeconds
            extra["turns"] = Double(committed.turns)
        }
        commits.removeFirst()
        var result = ScenarioResult(id: "7-reload", name: "reloadData of \(cells) cells", unit: "cell", items: cells, runs: commits)
        result.extra = extra
        return result
    }
}

/// A loaded feed of benchmark cells to insert into (built before anything is timed).
public final class BatchInsertFixture: Sendable {
    let source: BenchmarkSource
    public let feed: FeedNode

    /// A feed of `existing` cells, loaded and committed.
    public init(existing: Int) throws {
        source = BenchmarkSource(count: existing)
        feed = FeedNode(dataSource: source, width: 375, viewportHeight: 667)
        let loaded = DispatchSemaphore(value: 0)
        try feed.reloadData { _ in loaded.signal() }
        loaded.wait()
    }

    /// Inserts `count` cells in the middle in one batch update and waits for its commit.
    public func insert(_ count: Int) throws -> BatchUpdateSummary {
        let before = source.count.withLock { total -> Int in
            defer { total += count }
            return total
        }
        let done = DispatchSemaphore(value: 0)
        let summary = Guarded<BatchUpdateSummary?>(nil)
        try feed.performBatchUpdates({ changes in
            changes.insertItems(at: (0..<count).map { ItemPath(item: before / 2 + $0) })
        }) { committed in
            summary.withLock { $0 = committed }
            done.signal()
        }
        done.wait()
        guard let committed = summary.withLock({ $0 }) else { throw BenchmarkError("the batch insert never committed") }
        return committed
    }
}

/// A scenario that could not run as intended.
public struct BenchmarkError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A feed of benchmark cells.
final class BenchmarkSource: FeedDataSource, @unchecked Sendable {
    let count: Guarded<Int>
    init(count: Int) { self.count = Guarded(count) }
    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int { count.withLock { $0 } }
    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        { BenchmarkCellNode() }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The processors online.
public enum ProcessInfoCores {
    public static var count: Int {
        #if canImport(Glibc)
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }
}
