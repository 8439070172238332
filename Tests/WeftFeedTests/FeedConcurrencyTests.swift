import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
@testable import WeftFeed
import WeftSamples
import WeftSync

/// A cell whose height is 10 + value % 50 + extra, where `extra` changes while the feed works (a cell that
/// lays itself out again when its content arrives).
final class GrowingCell: CellNode, @unchecked Sendable {
    let value: Int
    private let extraBox = Locked(0.0)

    init(value: Int) {
        self.value = value
        super.init()
        identifier = "g\(value)"
    }

    var extra: Double {
        get { extraBox.withLock { $0 } }
        set { extraBox.withLock { $0 = newValue } }
    }

    var height: Double { Double(10 + value % 50) + extra }

    override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        StackSpec.vertical(children: [Box(size: Size(10, height))])
    }
}

/// A data source over sections of integers whose cells are ``GrowingCell``s; it remembers every cell it made.
class GrowingSource: FeedDataSource, @unchecked Sendable {
    let model: Locked<[[Int]]>
    let made = Locked<[GrowingCell]>([])

    init(_ sections: [[Int]]) {
        model = Locked(sections)
    }

    func numberOfSections(in feed: FeedNode) -> Int { model.withLock { $0.count } }

    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int {
        model.withLock { $0[section].count }
    }

    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let value = model.withLock { $0[itemPath.section][itemPath.item] }
        return { [made] in
            let cell = GrowingCell(value: value)
            made.withLock { $0.append(cell) }
            return cell
        }
    }
}

/// A context of its own for each test, so that tests running side by side never wait for each other's work.
func testContext(_ name: String) -> LayoutContext {
    LayoutContext(applyQueue: ApplyQueue(label: "test.\(name)"))
}

@Suite("Feed under concurrent changes")
struct FeedConcurrencyTests {
    /// After everything settled: the cells show the model's values in order, one distinct cell per item, each
    /// owned by the feed and laid out at the feed's width and its current height, stacked top to bottom.
    func expectConsistent(_ feed: FeedNode, _ model: [[Int]], width: Double, every step: Int = 1) {
        let cells = feed.cellNodes
        #expect(cells.map { $0.map { ($0 as? GrowingCell)?.value ?? -1 } } == model, "the values in data-source order")
        let all = cells.joined()
        #expect(Set(all.map(ObjectIdentifier.init)).count == all.count, "one distinct cell per item")
        var y = 0.0
        var index = 0
        for (section, row) in cells.enumerated() {
            for (item, cell) in row.enumerated() {
                let height = (cell as? GrowingCell)?.height ?? -1
                if index % step == 0 {
                    #expect(cell.owner === feed, "cell \(section),\(item) is owned by the feed")
                    let frame = feed.frameOfItem(at: ItemPath(item: item, section: section))
                    #expect(frame == Rect(x: 0, y: y, width: width, height: height), "cell \(section),\(item)")
                }
                y += height
                index += 1
            }
        }
        #expect(feed.contentHeight == y)
    }

    /// Checks, after each commit (on the apply queue), that every committed item has its cell: an item without
    /// one is lost for good. Counts the commits and the violations.
    /// In a large feed it walks every `every`-th commit only: an item that lost its cell stays without one, so a
    /// later walk finds it too.
    final class CommitChecker: @unchecked Sendable {
        let commits = Locked(0)
        let itemsWithoutCell = Locked(0)
        let every: Int

        init(every: Int = 1) {
            self.every = every
        }

        func check(_ feed: FeedNode) {
            let commit = commits.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            guard commit % every == 0 else { return }
            var missing = 0
            feed.live.structure.items.forEachSlot(from: 0) { slot in
                if feed.live.cellBySlot[Int(slot)] == nil { missing += 1 }
                return true
            }
            itemsWithoutCell.withLock { $0 += missing }
        }
    }

    /// Keeps calling `setNeedsLayout` on cells the source made (with a new extra height) until `stop`.
    func relayoutCells(_ source: GrowingSource, until stop: Locked<Bool>, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        while !stop.withLock({ $0 }) {
            let pick = rng.next()
            // (Picked under the lock: a copy of the list would make the source's next append copy it whole.)
            guard let cell = source.made.withLock({ $0.isEmpty ? nil : $0[Int(pick % UInt64($0.count))] }) else { continue }
            cell.extra = Double(rng.next() % 4)
            cell.setNeedsLayout()
        }
    }

    /// The audit's case: four threads reload items (each call valid on its own: counts never change) while two
    /// threads make cells lay themselves out. Items used to be lost (a cell-less item, forever).
    @Test("Concurrent reloads lose no item")
    func concurrentReloads() throws {
        let context = testContext("reloads")
        let model = [Array(0..<150), Array(1000..<1050)]
        let source = GrowingSource(model)
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480, context: context)
        try feed.reloadData()
        let stop = Locked(false)
        let checker = CommitChecker()
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            if thread >= 4 {
                relayoutCells(source, until: stop, seed: UInt64(thread))
                return
            }
            var rng = SplitMix64(seed: UInt64(100 + thread))
            for _ in 0..<60 {
                let section = Int(rng.next() % 2)
                let item = Int(rng.next() % UInt64(model[section].count))
                try? feed.performBatchUpdates({ $0.reloadItems(at: [ItemPath(item: item, section: section)]) }) { _ in
                    checker.check(feed)
                }
            }
            if thread == 0 { stop.withLock { $0 = true } }
        }
        stop.withLock { $0 = true }
        #expect(try context.applyQueue.settle(timeout: 60))
        #expect(checker.commits.withLock { $0 } == 240)
        #expect(checker.itemsWithoutCell.withLock { $0 } == 0, "every committed item had its cell at every commit")
        expectConsistent(feed, model, width: 320)
    }

    /// Inserts, deletes, reloads and moves from four threads (each edits the model and calls the feed under
    /// the app's lock, as an app must keep its model and its calls in one order), reloadData and setWidth from
    /// others, and cells laying themselves out the whole time.
    /// The same in a feed of 100,000 items, without the reloads of everything and the width changes (each lays
    /// out every cell; the small feed has them); there the frames of every 97th item are checked.
    @Test("Mixed concurrent changes end consistent with the model", arguments: [60, 100_000])
    func mixedChanges(size: Int) throws {
        let context = testContext("mixed")
        let large = size > 1000
        let source = GrowingSource([Array(0..<size), Array(500_000..<500_030)])
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480, context: context)
        try feed.reloadData()
        let appLock = NSLock()
        let nextValue = Locked(10_000)
        let stop = Locked(false)
        let finalWidth = Locked(320.0)
        let checker = CommitChecker(every: large ? 16 : 1)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var rng = SplitMix64(seed: UInt64(7 + thread))
            switch thread {
            case 0..<4:
                for _ in 0..<40 {
                    appLock.withLock {
                        let value = nextValue.withLock { v -> Int in
                            defer { v += 1 }
                            return v
                        }
                        var model = source.model.withLock { $0 }
                        let changes = randomChange(&model, value: value, rng: &rng)
                        source.model.withLock { $0 = model }
                        try? feed.performBatchUpdates({ $0 = changes }) { _ in checker.check(feed) }
                    }
                }
            case 4:
                for _ in 0..<(large ? 0 : 5) {
                    appLock.withLock { try? feed.reloadData() }
                    usleep(2000)
                }
            case 5:
                for i in 0..<(large ? 0 : 8) {
                    let width = i % 2 == 0 ? 300.0 : 340.0
                    appLock.withLock {
                        feed.setWidth(width)
                        finalWidth.withLock { $0 = width }
                    }
                    usleep(1000)
                }
            default:
                relayoutCells(source, until: stop, seed: UInt64(thread))
                return
            }
            if thread == 0 { stop.withLock { $0 = true } }
        }
        stop.withLock { $0 = true }
        #expect(try context.applyQueue.settle(timeout: large ? 600 : 60))
        #expect(checker.commits.withLock { $0 } == 160)
        #expect(checker.itemsWithoutCell.withLock { $0 } == 0, "every committed item had its cell at every commit")
        expectConsistent(feed, source.model.withLock { $0 }, width: finalWidth.withLock { $0 }, every: large ? 97 : 1)
    }

    /// A data source that calls back into the feed while the feed asks it for cells (here: changing the width)
    /// must not hang: the feed holds none of its locks while the data source runs.
    @Test("A data source that calls back into the feed does not deadlock")
    func reentrantDataSource() throws {
        let context = testContext("reentrant")
        let source = ReentrantSource([Array(0..<20)])
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480, context: context)
        source.feed = feed
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? feed.reloadData()
            source.model.withLock { $0[0].append(99) }
            try? feed.performBatchUpdates { $0.insertItems(at: [ItemPath(item: 20)]) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success, "reloadData and performBatchUpdates returned")
        #expect(try context.applyQueue.settle(timeout: 30))
        #expect(source.callbacks.withLock { $0 } == 21, "one width change per cell asked for")
        expectConsistent(feed, [Array(0..<20) + [99]], width: 330)
    }
}

/// A source whose cell blocks are asked for while it changes the feed's width (and reads it).
final class ReentrantSource: GrowingSource, @unchecked Sendable {
    weak var feed: FeedNode?
    let callbacks = Locked(0)

    override func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        feed.setWidth(feed.width + 10 > 330 ? 330 : feed.width + 10)
        callbacks.withLock { $0 += 1 }
        return super.feed(feed, cellNodeBlockForItemAt: itemPath)
    }
}

/// A random valid change of one section of `model` (applied to it), inserting `value` where it inserts.
func randomChange(_ model: inout [[Int]], value: Int, rng: inout SplitMix64) -> ChangeSet {
    var changes = ChangeSet()
    let section = Int(rng.next() % UInt64(model.count))
    let count = model[section].count
    switch rng.next() % 4 {
    case 0 where count > 0:
        let item = Int(rng.next() % UInt64(count))
        model[section].remove(at: item)
        changes.deleteItems(at: [ItemPath(item: item, section: section)])
    case 1 where count > 0:
        let item = Int(rng.next() % UInt64(count))
        model[section][item] = value
        changes.reloadItems(at: [ItemPath(item: item, section: section)])
    case 2 where count > 1:
        let from = Int(rng.next() % UInt64(count))
        let moved = model[section].remove(at: from)
        let to = Int(rng.next() % UInt64(count))
        model[section].insert(moved, at: to)
        changes.moveItem(at: ItemPath(item: from, section: section), to: ItemPath(item: to, section: section))
    default:
        let at = Int(rng.next() % UInt64(count + 1))
        model[section].insert(value, at: at)
        changes.insertItems(at: [ItemPath(item: at, section: section)])
    }
    return changes
}

/// Weak references to a feed and its cells, to check they are freed.
final class WeakFeed: @unchecked Sendable {
    weak var feed: FeedNode?
    var cells: [Weak] = []

    struct Weak {
        weak var cell: CellNode?
    }
}

@Suite("Feed memory")
struct FeedMemoryTests {
    /// A feed and its cells, laid out, scrolled through and relaid out, are freed once released: nothing they
    /// cache or apply refers back to them. (Every node used to hold itself through its cached layout, whose root
    /// entry was the node: nodes were never freed, as the address sanitizer reported for `weft demo`.)
    @Test("A feed and its cells are freed when released")
    func freed() throws {
        let context = testContext("memory")
        let watcher = WeakFeed()
        do {
            let source = GrowingSource([Array(0..<40), Array(100..<110)])
            let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 200, context: context)
            try feed.reloadData()
            #expect(try context.applyQueue.settle(timeout: 30))
            try context.applyQueue.sync { try feed.scroll(to: 300) }
            for cell in source.made.withLock({ $0 }) {
                cell.extra = 2
                cell.setNeedsLayout()
                _ = try cell.layoutThatFits(SizeRange(min: Size(320, 0), max: Size(320, .infinity)))
            }
            #expect(try context.applyQueue.settle(timeout: 30))
            watcher.feed = feed
            watcher.cells = feed.cellNodes.joined().map { WeakFeed.Weak(cell: $0) }
            #expect(watcher.cells.count == 50)
            #expect(feed.cellNodes.joined().allSatisfy { $0.appliedLayout != nil })
        }
        #expect(try context.applyQueue.settle(timeout: 30))
        #expect(watcher.feed == nil, "the feed was freed")
        #expect(watcher.cells.allSatisfy { $0.cell == nil }, "\(watcher.cells.filter { $0.cell != nil }.count) cells still alive")
    }
}

@Suite("Feed without a data source")
struct FeedWithoutSourceTests {
    /// The feed holds its data source weakly: once the source is gone, a reload is refused at once (it used to
    /// return without ever calling its completion, so a caller waiting on it waited forever).
    @Test("reloadData and performBatchUpdates throw when the data source is gone")
    func sourceGone() {
        var source: GrowingSource? = GrowingSource([[1, 2]])
        let feed = FeedNode(dataSource: source!, width: 320, viewportHeight: 480, context: testContext("nosource"))
        source = nil
        #expect(throws: FeedError("the feed has no data source (it holds its data source weakly)")) {
            try feed.reloadData { _ in Issue.record("a reload without a data source completed") }
        }
        #expect(throws: FeedError("the feed has no data source")) {
            try feed.performBatchUpdates { $0.insertItems(at: [ItemPath(item: 0)]) }
        }
    }
}

@Suite("Commits in turns")
struct CommitTurnTests {
    /// A large load puts its new cells in place over several apply-queue turns (here one cell per turn, with no
    /// time budget), then commits in one: between turns the feed shows nothing of it (all or nothing, as the
    /// data source and the feed must agree at every turn boundary), and at the end everything is in place.
    @Test("A large change fills its new cells over several turns and commits in one")
    func turns() throws {
        let count = 200
        let (context, source, feed) = Self.feed("turns", count: count, budget: 0)
        let seen = Locked<Set<Int>>([])
        let summary = Locked<BatchUpdateSummary?>(nil)
        let observer = Observer(feed: feed, seen: seen)
        try feed.reloadData { committed in summary.withLock { $0 = committed } }
        context.applyQueue.enqueue { observer.look() }
        #expect(try context.applyQueue.settle(timeout: 30))
        observer.stop()
        let result = try #require(summary.withLock { $0 })
        // 200 cells, one per turn (a turn puts at least one cell in place, and with no budget, no more): 200
        // turns of preparation, then the commit in a turn of its own (the last cell's turn had no budget left).
        #expect(result.turns == count + 1)
        #expect(result.inserted == count)
        #expect(seen.withLock { $0 }.isSubset(of: [0, count]), "the feed showed \(seen.withLock { $0 }) items")
        #expect(feed.numberOfItems(inSection: 0) == count)
        withExtendedLifetime(source) {}
    }

    /// With a budget far larger than the work (ten seconds for 200 small cells), the cells and the commit take
    /// one turn: the commit's predicted cost (1 us per item before the feed's first commit) fits.
    @Test("A change that fits the budget is put in place and committed in one turn")
    func oneTurn() throws {
        let count = 200
        let (context, source, feed) = Self.feed("one turn", count: count, budget: 10)
        let result = try Self.reload(feed, in: context)
        #expect(result.turns == 1)
        #expect(feed.numberOfItems(inSection: 0) == count)
        withExtendedLifetime(source) {}
    }

    /// A new cell that lays itself out again after its turn of preparation and before the commit (it has no
    /// owner yet to tell) still gets its new height in the feed: the commit reads each new cell's height
    /// again. (Review: the commit used the heights read when the cells were put in place.)
    @Test("A new cell resized between its preparation turn and the commit gets its new height")
    func resizedBeforeCommit() throws {
        let count = 40
        let (context, source, feed) = Self.feed("resized before commit", count: count, budget: 0)
        let grown = Locked<Set<ObjectIdentifier>>([])
        // Every turn until the commit: each cell put in place (it has a frame) and not yet committed grows by 5
        // and lays itself out again (its pass is applied on the apply queue, before or after the commit).
        final class Hook: @unchecked Sendable { var run: @Sendable () -> Void = {} }
        let hook = Hook()
        hook.run = {
            guard feed.numberOfItems(inSection: 0) == 0 else { return }
            for cell in source.made.withLock({ $0 }) where cell.frame.size.height > 0 {
                guard grown.withLock({ $0.insert(ObjectIdentifier(cell)).inserted }) else { continue }
                cell.extra = 5
                cell.setNeedsLayout()
            }
            context.applyQueue.enqueue(hook.run)
        }
        let summary = Locked<BatchUpdateSummary?>(nil)
        // (Queued first: the apply queue may run every turn of the load before this thread queues anything.)
        context.applyQueue.enqueue(hook.run)
        try feed.reloadData { committed in summary.withLock { $0 = committed } }
        #expect(try context.applyQueue.settle(timeout: 30))
        #expect(summary.withLock { $0 } != nil)
        #expect(grown.withLock { $0.count } > 0, "some cells were resized before the commit")
        // (Cells are made in parallel: item i is the cell of value i.)
        let cells = source.made.withLock { $0 }.sorted { $0.value < $1.value }
        #expect(cells.map(\.value) == Array(0..<count))
        var y = 0.0
        for (i, cell) in cells.enumerated() {
            let frame = try #require(feed.frameOfItem(at: ItemPath(item: i)))
            #expect(frame == Rect(x: 0, y: y, width: 320, height: cell.height), "item \(i)")
            y += cell.height
        }
        #expect(feed.contentHeight == y)
    }

    /// An infinite or huge budget is no budget (it once trapped converting it to nanoseconds), and a NaN or
    /// negative one is none at all: one cell per turn.
    @Test("Infinite, huge, NaN and negative budgets", arguments: [Double.infinity, 1e11, .nan, -1])
    func oddBudgets(_ budget: Double) throws {
        let count = 20
        let (context, source, feed) = Self.feed("odd budget", count: count, budget: budget)
        let result = try Self.reload(feed, in: context)
        #expect(result.turns == (budget > 0 ? 1 : count + 1))
        #expect(feed.numberOfItems(inSection: 0) == count)
        withExtendedLifetime(source) {}
    }

    /// A feed of `count` items (`GrowingSource`), 320 wide, in a context of its own, committing with `budget`.
    static func feed(_ name: String, count: Int, budget: Double) -> (LayoutContext, GrowingSource, FeedNode) {
        let context = testContext(name)
        let source = GrowingSource([Array(0..<count)])
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480, context: context)
        feed.commitTurnBudget = budget
        return (context, source, feed)
    }

    /// Loads `feed` and waits until its apply queue settles; returns the load's summary.
    static func reload(_ feed: FeedNode, in context: LayoutContext) throws -> BatchUpdateSummary {
        let summary = Locked<BatchUpdateSummary?>(nil)
        try feed.reloadData { committed in summary.withLock { $0 = committed } }
        #expect(try context.applyQueue.settle(timeout: 30))
        return try #require(summary.withLock { $0 })
    }

    /// Looks at the feed's item count in every turn until stopped.
    final class Observer: @unchecked Sendable {
        let feed: FeedNode
        let seen: Locked<Set<Int>>
        private let stopped = Locked(false)

        init(feed: FeedNode, seen: Locked<Set<Int>>) {
            self.feed = feed
            self.seen = seen
        }

        func look() {
            let items = feed.numberOfItems(inSection: 0)
            seen.withLock { _ = $0.insert(items) }
            if !stopped.withLock({ $0 }) && items == 0 { feed.context.applyQueue.enqueue { self.look() } }
        }

        func stop() { stopped.withLock { $0 = true } }
    }
}
