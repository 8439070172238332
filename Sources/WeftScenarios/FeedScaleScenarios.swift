import Dispatch
import WeftFeed
import WeftLayout
import WeftNodes

/// A cell whose layout costs next to nothing (one fixed size, five heights in turn), so that a feed-size row
/// measures the feed's own bookkeeping.
final class ScaleCellNode: CellNode, @unchecked Sendable {
    init(height: Double) {
        super.init()
        style = LayoutStyle(preferredSize: Size(375, height))
    }

    static func height(_ index: Int) -> Double { 60 + Double(index % 5) * 20 }
}

/// A feed of `ScaleCellNode`s with a count the scenario changes.
final class ScaleSource: FeedDataSource, @unchecked Sendable {
    // @unchecked: `count` is Guarded; the rest is immutable.
    let count = Guarded(0)
    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int { count.withLock { $0 } }
    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let height = ScaleCellNode.height(itemPath.item)
        return { ScaleCellNode(height: height) }
    }
}

/// A feed of `size` cheap cells, loaded, in an apply queue of its own, for inserting and deleting 100 cells in
/// the middle (the Benchmarks package's feed-size rows; built before anything is measured).
public final class FeedScaleFixture: Sendable {
    let source = ScaleSource()
    public let feed: FeedNode
    public let size: Int

    public init(size: Int) throws {
        self.size = size
        let queue = ApplyQueue(label: "bench.feed-scale-fixture")
        feed = FeedNode(dataSource: source, width: 375, viewportHeight: 667, context: LayoutContext(applyQueue: queue))
        feed.itemLimit = max(FeedNode.defaultItemLimit, size + 1000)
        source.count.withLock { $0 = size }
        try Self.wait { done in try feed.reloadData(completion: done) }
    }

    /// Inserts `count` cells in the middle and waits for the commit; returns its summary.
    @discardableResult
    public func insert(_ count: Int) throws -> BatchUpdateSummary {
        let paths = (size / 2..<size / 2 + count).map { ItemPath(item: $0) }
        source.count.withLock { $0 = size + count }
        return try Self.wait { done in try feed.performBatchUpdates({ $0.insertItems(at: paths) }, completion: done) }
    }

    /// Deletes the `count` cells `insert(_:)` put in the middle and waits for the commit.
    @discardableResult
    public func delete(_ count: Int) throws -> BatchUpdateSummary {
        let paths = (size / 2..<size / 2 + count).map { ItemPath(item: $0) }
        source.count.withLock { $0 = size }
        return try Self.wait { done in try feed.performBatchUpdates({ $0.deleteItems(at: paths) }, completion: done) }
    }

    /// Runs a feed change and waits for its completion; throws the error a refused change reports.
    @discardableResult
    static func wait(_ change: (@escaping @Sendable (BatchUpdateSummary) -> Void) throws -> Void) throws -> BatchUpdateSummary {
        let done = DispatchSemaphore(value: 0)
        let result = Guarded<BatchUpdateSummary?>(nil)
        try change { summary in
            result.withLock { $0 = summary }
            done.signal()
        }
        done.wait()
        guard let summary = result.withLock({ $0 }) else { throw BenchmarkError("a feed change never completed") }
        if let error = summary.error { throw BenchmarkError("a feed change was refused: \(error)") }
        return summary
    }
}

extension Scenarios {
    /// Feed-size rows: for each size N, a feed filled by pages of 100, then 100 cells inserted into it and
    /// deleted from it (from the call to the commit), one cell's height changed (the offsets below follow) and one
    /// screen scrolled, each per item. Each row's note compares it with the same row at the first size.
    public static func feedScale(sizes: [Int], repetitions: Int) throws -> [ScenarioResult] {
        var results: [ScenarioResult] = []
        var firsts: [String: Double] = [:]
        for n in sizes {
            var rows = try feedScaleRows(n, repetitions: repetitions)
            for i in rows.indices {
                let key = String(rows[i].id.prefix { $0 != "@" })
                if let first = firsts[key] {
                    rows[i].extra["growth"] = rows[i].perItem / first
                    rows[i].extra["baseSize"] = Double(sizes[0])
                } else {
                    firsts[key] = rows[i].perItem
                }
            }
            results += rows
        }
        return results
    }

    private static func feedScaleRows(_ n: Int, repetitions: Int) throws -> [ScenarioResult] {
        let queue = ApplyQueue(label: "bench.feed-scale")
        let source = ScaleSource()
        let feed = FeedNode(dataSource: source, width: 375, viewportHeight: 667, context: LayoutContext(applyQueue: queue))
        feed.itemLimit = max(FeedNode.defaultItemLimit, n + 1000)
        let size = n.groupedDigits
        func wait(_ change: (@escaping @Sendable (BatchUpdateSummary) -> Void) throws -> Void) throws -> BatchUpdateSummary {
            do {
                return try FeedScaleFixture.wait(change)
            } catch {
                throw BenchmarkError("feed-size row at \(size): \(error)")
            }
        }
        // Fill by pages of 100 (once: the fill is the feed the other rows use), from an empty section.
        _ = try wait { done in try feed.reloadData(completion: done) }
        let fillStart = DispatchTime.now().uptimeNanoseconds
        var loaded = 0
        while loaded < n {
            let page = min(100, n - loaded)
            let start = loaded
            source.count.withLock { $0 = start + page }
            _ = try wait { done in
                try feed.performBatchUpdates({ $0.insertItems(at: (start..<start + page).map { ItemPath(item: $0) }) }, completion: done)
            }
            loaded += page
        }
        let fill = Double(DispatchTime.now().uptimeNanoseconds - fillStart) / 1e9
        var filled = ScenarioResult(id: "8-fill@\(n)", name: "fill a feed of \(size) by pages of 100", unit: "cell", items: n, runs: [fill])
        filled.extra["bookkeepingBytesPerItem"] = Double(feed.bookkeepingBytes) / Double(n)
        var results = [filled]

        // Insert 100 in the middle, then delete them, from the call to the commit.
        var inserts: [Double] = []
        var deletes: [Double] = []
        var insertCells: [Double] = []
        let middle = n / 2
        for _ in 0..<(repetitions + 1) {
            let paths = (middle..<middle + 100).map { ItemPath(item: $0) }
            source.count.withLock { $0 = n + 100 }
            var start = DispatchTime.now().uptimeNanoseconds
            let inserted = try wait { done in try feed.performBatchUpdates({ $0.insertItems(at: paths) }, completion: done) }
            inserts.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            insertCells.append(inserted.cellSeconds + inserted.preparationSeconds)
            source.count.withLock { $0 = n }
            start = DispatchTime.now().uptimeNanoseconds
            _ = try wait { done in try feed.performBatchUpdates({ $0.deleteItems(at: paths) }, completion: done) }
            deletes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        var insert = ScenarioResult(id: "8-insert@\(n)", name: "insert 100 into \(size), call to commit", unit: "cell", items: 100,
                                    runs: Array(inserts.dropFirst()))
        // Of which the new cells' own work: making them, laying them out and putting their hierarchies in place.
        insert.extra["cellSeconds"] = ScenarioResult(id: "", name: "", unit: "", items: 1, runs: Array(insertCells.dropFirst())).median
        results.append(insert)
        results.append(ScenarioResult(id: "8-delete@\(n)", name: "delete 100 from \(size), call to commit", unit: "cell", items: 100,
                                      runs: Array(deletes.dropFirst())))

        // One cell near the top changes height: the offsets of the cells below follow (on the apply queue).
        let resizes = 1000
        var resizeRuns: [Double] = []
        guard let cell = feed.cellNode(at: ItemPath(item: min(10, n - 1))) else {
            throw BenchmarkError("feed-size row at \(size): no cell to resize")
        }
        for _ in 0..<(repetitions + 1) {
            resizeRuns.append(queue.sync {
                let start = DispatchTime.now().uptimeNanoseconds
                for i in 0..<resizes {
                    let from = Size(375, 100 + Double(i % 2))
                    feed.cellNode(cell, didChangeSizeFrom: from, to: Size(375, 101 - Double(i % 2)))
                }
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            })
        }
        results.append(ScenarioResult(id: "8-resize@\(n)", name: "one cell's height changes in \(size)", unit: "change",
                                      items: resizes, runs: Array(resizeRuns.dropFirst())))

        // One screen scrolled, in the middle of the feed: the cells entering and leaving the ranges are told.
        let screens = 20
        var scrollRuns: [Double] = []
        for _ in 0..<(repetitions + 1) {
            scrollRuns.append(try queue.sync { () throws -> Double in
                var offset = feed.contentHeight / 2
                try feed.scroll(to: offset)
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<screens {
                    offset += 667
                    try feed.scroll(to: offset)
                }
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            })
        }
        results.append(ScenarioResult(id: "8-scroll@\(n)", name: "scroll one screen in \(size)", unit: "screen", items: screens,
                                      runs: Array(scrollRuns.dropFirst())))
        return results
    }
}

extension Int {
    /// The number with thousands separated by commas.
    public var groupedDigits: String {
        let digits = String(magnitude)
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (self < 0 ? "-" : "") + result
    }
}
