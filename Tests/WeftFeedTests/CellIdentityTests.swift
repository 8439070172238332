import Dispatch
import Testing
import WeftLayout
@testable import WeftNodes
@testable import WeftFeed
import WeftSync

/// A cell whose height can change: it lays itself out again at its new height after `setNeedsLayout`.
final class SizedCell: CellNode, @unchecked Sendable {
    let height: Locked<Double>

    init(_ name: String, height: Double = 10) {
        self.height = Locked(height)
        super.init()
        identifier = name
    }

    override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        StackSpec.vertical(children: [Box(size: Size(10, height.withLock { $0 }))])
    }
}

/// A data source of one section whose items' cells are given: the same cell may be given for two items.
final class GivenCellSource: FeedDataSource, @unchecked Sendable {
    let cells: Locked<[SizedCell]>
    /// Waited for by the cell blocks of the next change, when set (to plan another change while they wait).
    let gate = Locked<DispatchSemaphore?>(nil)

    init(_ cells: [SizedCell]) {
        self.cells = Locked(cells)
    }

    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int { cells.withLock { $0.count } }

    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let cell = cells.withLock { $0[itemPath.item] }
        let gate = gate.withLock { $0 }
        return {
            if let gate {
                gate.wait()
                gate.signal()
            }
            return cell
        }
    }
}

@Suite("A cell node belongs to one item")
struct CellIdentityTests {
    func makeFeed(_ cells: [SizedCell]) throws -> (FeedNode, GivenCellSource) {
        let source = GivenCellSource(cells)
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480, context: testContext("cells"))
        let summary = try change(feed) { try feed.reloadData(completion: $0) }
        #expect(summary?.error == nil)
        return (feed, source)
    }

    /// Runs a change and waits for its completion's summary.
    func change(_ feed: FeedNode, _ body: (@escaping @Sendable (BatchUpdateSummary) -> Void) throws -> Void) throws -> BatchUpdateSummary? {
        let waiter = Waiter()
        try body { waiter.done($0) }
        #expect(waiter.wait())
        return waiter.summaries.withLock { $0.last }
    }

    /// The feed shows `cells`, in order, stacked at their heights, each owned by the feed.
    func expectShows(_ feed: FeedNode, _ cells: [SizedCell], _ note: Comment? = nil) {
        #expect(feed.cellNodes.map { $0.map(ObjectIdentifier.init) } == [cells.map(ObjectIdentifier.init)], note)
        var y = 0.0
        for (item, cell) in cells.enumerated() {
            let height = cell.height.withLock { $0 }
            #expect(feed.frameOfItem(at: ItemPath(item: item)) == Rect(x: 0, y: y, width: 320, height: height), note)
            #expect(cell.owner === feed, note)
            y += height
        }
        #expect(feed.contentHeight == y, note)
    }

    @Test("One cell returned for two items is refused, naming both, and the feed stays as it was")
    func oneCellForTwoItems() throws {
        let (a, b, shared) = (SizedCell("a"), SizedCell("b"), SizedCell("shared"))
        // The reviewer's case: a first load whose two items get one cell.
        let source = GivenCellSource([shared, shared])
        let empty = FeedNode(dataSource: source, width: 320, viewportHeight: 480, context: testContext("shared"))
        let first = try change(empty) { try empty.reloadData(completion: $0) }
        #expect(first?.error == FeedError(
            "SizedCell \"shared\" is returned for two items, section 0, item 0 and section 0, item 1; a cell node belongs to one item"))
        #expect(empty.numberOfSections == 0 && empty.contentHeight == 0)
        #expect(shared.owner == nil)

        // In a batch update of a loaded feed.
        let (feed, model) = try makeFeed([a, b])
        model.cells.withLock { $0 = [a, shared, b, shared] }
        let refused = try change(feed) { done in
            try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 1), ItemPath(item: 3)]) }, completion: done)
        }
        #expect(refused?.error == FeedError(
            "SizedCell \"shared\" is returned for two items, section 0, item 1 and section 0, item 3; a cell node belongs to one item"))
        #expect(refused?.inserted == 0 && refused?.cellsLaidOut == 0)
        expectShows(feed, [a, b], "after the refusal")
        #expect(shared.owner == nil)
        // The next change is checked against the feed as it was (two items), and a resize still moves what follows.
        let c = SizedCell("c", height: 30)
        model.cells.withLock { $0 = [a, c, b] }
        let accepted = try change(feed) { done in
            try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 1)]) }, completion: done)
        }
        #expect(accepted?.error == nil && accepted?.inserted == 1)
        a.height.withLock { $0 = 50 }
        a.setNeedsLayout()
        #expect(try feed.applyQueue.settle(timeout: 60))
        expectShows(feed, [a, c, b], "a accepted change, then a resize: 50 + 30 + 10")
    }

    @Test("A cell another feed holds is refused; once that feed lets go of it, or is gone, it is accepted")
    func cellInAnotherFeed() throws {
        let (a, b) = (SizedCell("a"), SizedCell("b"))
        var (first, firstModel): (FeedNode?, GivenCellSource) = try makeFeed([a, b])
        let (second, secondModel) = try makeFeed([])
        secondModel.cells.withLock { $0 = [a] }
        let refused = try change(second) { done in
            try second.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 0)]) }, completion: done)
        }
        #expect(refused?.error == FeedError(
            "SizedCell \"a\" returned for section 0, item 0 is already in another feed; a cell node belongs to one item"))
        expectShows(second, [], "after the refusal")
        // The first feed lets go of a: the second takes it.
        firstModel.cells.withLock { $0 = [b] }
        let deleted = try change(first!) { done in
            try first!.performBatchUpdates({ $0.deleteItems(at: [ItemPath(item: 0)]) }, completion: done)
        }
        #expect(deleted?.error == nil)
        let accepted = try change(second) { done in
            try second.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 0)]) }, completion: done)
        }
        #expect(accepted?.error == nil && accepted?.inserted == 1)
        // b's feed goes away: b is free for another.
        try second.applyQueue.settle(timeout: 60)
        first = nil
        try settleAll()
        #expect(b.ownerClaim.load(ordering: .acquiring) == 0)
    }

    @Test("A cell the feed holds for one item, returned for another, is refused; once let go it may come back")
    func cellAlreadyInTheFeed() throws {
        let (a, b) = (SizedCell("a"), SizedCell("b"))
        let (feed, model) = try makeFeed([a, b])
        model.cells.withLock { $0 = [a, b, a] }
        let refused = try change(feed) { done in
            try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 2)]) }, completion: done)
        }
        #expect(refused?.error == FeedError(
            "SizedCell \"a\" returned for section 0, item 2 is already in the feed at section 0, item 0 (before this change); "
                + "a cell node belongs to one item"))
        expectShows(feed, [a, b], "after the refusal")
        // A reload makes a new cell for the item: the item's own cell again is a cell in two places too.
        model.cells.withLock { $0 = [a, b] }
        let reloaded = try change(feed) { done in try feed.performBatchUpdates({ $0.reloadItems(at: [ItemPath(item: 1)]) }, completion: done) }
        #expect(reloaded?.error == FeedError(
            "SizedCell \"b\" returned for section 0, item 1 is already in the feed at section 0, item 1 (before this change); "
                + "a cell node belongs to one item"))
        expectShows(feed, [a, b], "after the refused reload")
        // Deleted, a's cell leaves the feed; then it may be returned for a new item.
        model.cells.withLock { $0 = [b] }
        let deleted = try change(feed) { done in try feed.performBatchUpdates({ $0.deleteItems(at: [ItemPath(item: 0)]) }, completion: done) }
        #expect(deleted?.error == nil && deleted?.deleted == 1)
        model.cells.withLock { $0 = [b, a] }
        let back = try change(feed) { done in try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 1)]) }, completion: done) }
        #expect(back?.error == nil && back?.inserted == 1)
        expectShows(feed, [b, a], "a let go, then back")
    }

    @Test("Changes planned on a refused change are refused with it; a width change among them still applies")
    func changesPlannedOnARefusedOne() throws {
        let (a, b, shared) = (SizedCell("a"), SizedCell("b"), SizedCell("shared"))
        let (feed, model) = try makeFeed([a, b])
        // The refused change's blocks wait while two more changes are planned on the structure it would make.
        let gate = DispatchSemaphore(value: 0)
        model.gate.withLock { $0 = gate }
        model.cells.withLock { $0 = [a, b, shared, shared] }
        let first = Waiter(), second = Waiter()
        try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 2), ItemPath(item: 3)]) }, completion: { first.done($0) })
        model.gate.withLock { $0 = nil }
        let c = SizedCell("c")
        model.cells.withLock { $0 = [a, b, shared, shared, c] }
        try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 4)]) }, completion: { second.done($0) })
        feed.setWidth(200)
        gate.signal()
        #expect(first.wait() && second.wait())
        let refusal = "SizedCell \"shared\" is returned for two items, section 0, item 2 and section 0, item 3; a cell node belongs to one item"
        #expect(first.summaries.withLock { $0.last?.error } == FeedError(refusal))
        #expect(second.summaries.withLock { $0.last?.error } == FeedError(
            "this change was planned after one that was refused (\(refusal)); the feed is as it was before that one"))
        #expect(c.owner == nil)
        // The next change is checked against the two items the feed shows, laid out at the new width.
        model.cells.withLock { $0 = [a, b, c] }
        let accepted = try change(feed) { done in try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 2)]) }, completion: done) }
        #expect(accepted?.error == nil)
        #expect(feed.cellNodes.map { $0.map(ObjectIdentifier.init) } == [[a, b, c].map(ObjectIdentifier.init)])
        #expect(feed.cellNodes.joined().map(\.frame.size.width) == [200, 200, 200], "laid out at the new width")
        #expect(feed.contentHeight == 30)
    }
}
