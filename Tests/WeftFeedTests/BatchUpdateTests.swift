import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
@testable import WeftFeed
import WeftSamples
import WeftSync

@Suite("Feed batch updates")
struct BatchUpdateTests {
    func makeFeed(_ sections: [[Int]]) throws -> (FeedNode, ValueSource) {
        let source = ValueSource(sections)
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        return (feed, source)
    }

    /// Checks the feed against the model: the cells in order, stacked top to bottom at their heights.
    func expectMatches(_ feed: FeedNode, _ model: [[Int]], _ note: String = "") {
        #expect(feedValues(feed) == model, "\(note)")
        var y = 0.0
        for (section, values) in model.enumerated() {
            for (item, value) in values.enumerated() {
                let frame = feed.frameOfItem(at: ItemPath(item: item, section: section))
                #expect(frame == Rect(x: 0, y: y, width: 320, height: ValueCell.height(value)), "\(note) at \(section),\(item)")
                y += ValueCell.height(value)
            }
        }
        #expect(feed.contentHeight == y, "\(note)")
    }

    /// A data source whose counts go negative: each count reached a range that trapped ("Range requires
    /// lowerBound <= upperBound"), in `reloadData` and in `performBatchUpdates`.
    final class CountingSource: FeedDataSource, @unchecked Sendable {
        let counts = Locked((sections: 1, items: 2))
        func numberOfSections(in feed: FeedNode) -> Int { counts.withLock { $0.sections } }
        func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int { counts.withLock { $0.items } }
        func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
            let value = itemPath.item
            return { ValueCell(value: value) }
        }
    }

    @Test("Negative counts from the data source are refused, naming them, and the feed stays as it was")
    func negativeCounts() throws {
        let source = CountingSource()
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        expectMatches(feed, [[0, 1]])
        source.counts.withLock { $0.items = -1 }
        #expect(throws: FeedError("section 0: the data source reports -1 items; expected 0 or more")) { try feed.reloadData() }
        source.counts.withLock { $0.items = -3 }
        #expect(throws: FeedError("section 0: the data source reports -3 items; expected 0 or more")) {
            try feed.performBatchUpdates { $0.insertSections([0]) }
        }
        source.counts.withLock { $0 = (sections: -1, items: 0) }
        #expect(throws: FeedError("the data source reports -1 sections; expected 0 or more")) { try feed.performBatchUpdates { _ in } }
        #expect(throws: FeedError("the data source reports -1 sections; expected 0 or more")) { try feed.reloadData() }
        try settleAll()
        expectMatches(feed, [[0, 1]])
        // Counts that add up again are accepted.
        source.counts.withLock { $0 = (sections: 1, items: 3) }
        let again = Waiter()
        try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 2, section: 0)]) }, completion: { again.done($0) })
        #expect(again.wait())
        expectMatches(feed, [[0, 1, 2]])
    }

    /// Counts beyond any memory (a data source answering Int.max) trapped when the feed reserved room for them.
    @Test("Counts above the feed's item limit are refused, naming them, and the feed stays as it was")
    func countsAboveTheLimit() throws {
        let source = CountingSource()
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480)
        #expect(feed.itemLimit == 1_000_000)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        expectMatches(feed, [[0, 1]])
        source.counts.withLock { $0 = (sections: .max, items: 0) }
        #expect(throws: FeedError("the data source reports \(Int.max) sections; the feed takes at most 1000000 (its itemLimit)")) {
            try feed.reloadData()
        }
        source.counts.withLock { $0 = (sections: 2, items: .max) }
        #expect(throws: FeedError("section 0: the data source reports \(Int.max) items, 0 before it; the feed takes at most 1000000 in all (its itemLimit)")) {
            try feed.performBatchUpdates { $0.insertSections([1]) }
        }
        // The limit counts all sections together: 3 sections of 40 pass a limit of 120 and not one of 100, which
        // the third section crosses.
        feed.itemLimit = 100
        source.counts.withLock { $0 = (sections: 3, items: 40) }
        #expect(throws: FeedError("section 2: the data source reports 40 items, 80 before it; the feed takes at most 100 in all (its itemLimit)")) {
            try feed.reloadData()
        }
        try settleAll()
        expectMatches(feed, [[0, 1]])
        feed.itemLimit = 120
        let again = Waiter()
        try feed.reloadData { again.done($0) }
        #expect(again.wait())
        expectMatches(feed, Array(repeating: Array(0..<40), count: 3))
    }

    /// Many sections, each with its own item changes: each section's plan reads its own changes (they were
    /// filtered out of all of them for every section: 2.9 s for 8,000 sections in a debug build). The slots
    /// follow the batch-update rules: deletions and reloads at old positions, insertions at new ones, the
    /// survivors filling the rest in order, a reloaded item a new cell in its place.
    @Test("A batch touching items in thousands of sections is planned section by section")
    func manySections() throws {
        let n = 6_000
        let old: [[ItemID]] = (0..<n).map { s in (0..<3).map { ItemID(3 * s + $0) } }
        var changes = ChangeSet()
        changes.deleteItems(at: (0..<n).map { ItemPath(item: 0, section: $0) })
        changes.reloadItems(at: stride(from: 0, to: n, by: 2).map { ItemPath(item: 1, section: $0) })
        changes.insertItems(at: stride(from: 0, to: n, by: 3).map { ItemPath(item: 1, section: $0) })
        let counts = (0..<n).map { $0 % 3 == 0 ? 3 : 2 }
        let slots = try plannedSlots(old, changes, counts)
        #expect(slots.count == n)
        for s in 0..<n {
            let second: Slot = s % 2 == 0 ? .new(ItemPath(item: 0, section: s)) : .kept(ItemID(3 * s + 1))
            let expected: [Slot] = s % 3 == 0
                ? [second, .new(ItemPath(item: 1, section: s)), .kept(ItemID(3 * s + 2))]
                : [second, .kept(ItemID(3 * s + 2))]
            if slots[s] != expected {
                Issue.record("section \(s): \(slots[s]), expected \(expected)")
                break
            }
        }
        // The checks still name the section: one item deleted twice, in the last section.
        var twice = changes
        twice.deleteItems(at: [ItemPath(item: 0, section: n - 1)])
        #expect(throws: FeedError("\(ItemPath(item: 0, section: n - 1)) is both deleteItems and deleteItems")) {
            try plannedSlots(old, twice, counts)
        }
    }

    @Test("Initial load lays every cell out and stacks them")
    func initialLoad() throws {
        let (feed, _) = try makeFeed([[1, 2, 3], [40, 41]])
        expectMatches(feed, [[1, 2, 3], [40, 41]])
        #expect(feed.statistics.cellsLaidOut == 5)
        for cell in feed.cellNodes.joined() {
            #expect((cell as? ValueCell)?.laidOutOnApplyQueue == false, "no layout work on the apply queue")
            #expect(cell.owner === feed)
        }
    }

    @Test("Random inserts, deletes, reloads and moves match an array model after every commit")
    func randomAgainstModel() throws {
        var rng = SplitMix64(seed: 7)
        var model: [[Int]] = [Array(0..<20), Array(100..<110)]
        let (feed, source) = try makeFeed(model)
        var nextValue = 1000
        for step in 0..<60 {
            var changes = ChangeSet()
            var next = model
            let section = Int.random(in: 0..<next.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !next[section].isEmpty:
                // Delete a few distinct items (old positions).
                let picks = Array(Set((0..<3).map { _ in Int.random(in: 0..<next[section].count, using: &rng) })).sorted()
                for item in picks.reversed() { next[section].remove(at: item) }
                changes.deleteItems(at: picks.map { ItemPath(item: $0, section: section) })
            case 1:
                // Insert a few items (new positions).
                let count = Int.random(in: 1...3, using: &rng)
                var positions: [Int] = []
                for _ in 0..<count {
                    let at = Int.random(in: 0...next[section].count, using: &rng)
                    next[section].insert(nextValue, at: at)
                    nextValue += 1
                    positions = positions.map { $0 >= at ? $0 + 1 : $0 } + [at]
                }
                changes.insertItems(at: positions.map { ItemPath(item: $0, section: section) })
            case 2 where !next[section].isEmpty:
                let item = Int.random(in: 0..<next[section].count, using: &rng)
                next[section][item] = nextValue
                nextValue += 1
                changes.reloadItems(at: [ItemPath(item: item, section: section)])
            case 3 where next[section].count > 1:
                let from = Int.random(in: 0..<next[section].count, using: &rng)
                let value = next[section].remove(at: from)
                let to = Int.random(in: 0...next[section].count, using: &rng)
                next[section].insert(value, at: to)
                changes.moveItem(at: ItemPath(item: from, section: section), to: ItemPath(item: to, section: section))
            default:
                // Delete one item and insert another in the same batch (deletes use old, inserts new positions).
                guard !next[section].isEmpty else { continue }
                let gone = Int.random(in: 0..<next[section].count, using: &rng)
                next[section].remove(at: gone)
                let at = Int.random(in: 0...next[section].count, using: &rng)
                next[section].insert(nextValue, at: at)
                nextValue += 1
                changes.deleteItems(at: [ItemPath(item: gone, section: section)])
                changes.insertItems(at: [ItemPath(item: at, section: section)])
            }
            source.model.withLock { $0 = next }
            let waiter = Waiter()
            let captured = changes
            try feed.performBatchUpdates({ $0 = captured }) { waiter.done($0) }
            #expect(waiter.wait())
            model = next
            expectMatches(feed, model, "step \(step)")
        }
        for cell in feed.cellNodes.joined() {
            #expect((cell as? ValueCell)?.laidOutOnApplyQueue == false)
        }
    }

    @Test("Section inserts, deletes, reloads and moves")
    func sections() throws {
        let (feed, source) = try makeFeed([[1], [2, 3], [4]])
        let kept = try #require(feed.cellNode(at: ItemPath(item: 0, section: 1)))
        // Delete section 0, insert a section at 1, reload section 2: the survivors (old 1, then old 2
        // reloaded) fill the places the insertion leaves free, in order: [[2, 3], [9, 9], [5]].
        source.model.withLock { $0 = [[2, 3], [9, 9], [5]] }
        let waiter = Waiter()
        try feed.performBatchUpdates({ changes in
            changes.deleteSections([0])
            changes.insertSections([1])
            changes.reloadSections([2])
        }) { waiter.done($0) }
        #expect(waiter.wait())
        expectMatches(feed, [[2, 3], [9, 9], [5]])
        #expect(feed.cellNode(at: ItemPath(item: 0, section: 0)) === kept, "a kept section keeps its cells")
        // Move section 0 to the end.
        source.model.withLock { $0 = [[9, 9], [5], [2, 3]] }
        try feed.performBatchUpdates({ $0.moveSection(0, toSection: 2) }) { waiter.done($0) }
        #expect(waiter.wait())
        expectMatches(feed, [[9, 9], [5], [2, 3]])
        #expect(feed.cellNode(at: ItemPath(item: 0, section: 2)) === kept)
        // Move an item across sections.
        source.model.withLock { $0 = [[9], [5, 9], [2, 3]] }
        try feed.performBatchUpdates({ $0.moveItem(at: ItemPath(item: 1, section: 0), to: ItemPath(item: 1, section: 1)) }) {
            waiter.done($0)
        }
        #expect(waiter.wait())
        expectMatches(feed, [[9], [5, 9], [2, 3]])
    }

    @Test("Invalid change sets are refused with the section and item, and change nothing")
    func invalid() throws {
        let (feed, source) = try makeFeed([[1, 2, 3]])
        let before = feed.cellNodes.joined().map(ObjectIdentifier.init)
        func refused(_ message: String, _ build: (inout ChangeSet) -> Void) {
            #expect(throws: FeedError(message)) { try feed.performBatchUpdates(build) }
        }
        refused("deleteItems: section 0, item 5 does not exist (the feed has 3 items in section 0)") {
            $0.deleteItems(at: [ItemPath(item: 5)])
        }
        refused("section 0, item 1 is both deleteItems and reloadItems") {
            $0.deleteItems(at: [ItemPath(item: 1)])
            $0.reloadItems(at: [ItemPath(item: 1)])
        }
        refused("section 0: the data source now has 3 items, but the feed had 3 with 1 inserted, 0 deleted, 0 moved in and 0 moved out, so it should have 4") {
            $0.insertItems(at: [ItemPath(item: 0)])
        }
        source.model.withLock { $0 = [[1, 2, 3, 4]] }
        refused("insertItems: section 0, item 7 is beyond the 4 items the data source now has in section 0") {
            $0.insertItems(at: [ItemPath(item: 7)])
        }
        refused("deleteSections: section 3 does not exist (the feed has 1 sections)") {
            $0.deleteSections([3])
        }
        refused("section 2, item 0: its section is inserted, reloaded or does not exist; item changes need a section that stays") {
            $0.insertItems(at: [ItemPath(item: 0, section: 2)])
        }
        try settleAll()
        #expect(feed.cellNodes.joined().map(ObjectIdentifier.init) == before, "the feed stayed as it was")
        // The plan was not touched either: the right change still applies.
        let waiter = Waiter()
        try feed.performBatchUpdates({ $0.insertItems(at: [ItemPath(item: 3)]) }) { waiter.done($0) }
        #expect(waiter.wait())
        #expect(feedValues(feed) == [[1, 2, 3, 4]])
    }

    @Test("Deletes apply before inserts, in one commit")
    func deletesBeforeInserts() throws {
        let (feed, source) = try makeFeed([[1, 2, 3, 4]])
        source.model.withLock { $0 = [[7, 2, 4, 8]] }
        let waiter = Waiter()
        // Delete 1 (old 0) and 3 (old 2); insert 7 at new 0 and 8 at new 3.
        try feed.performBatchUpdates({
            $0.deleteItems(at: [ItemPath(item: 0), ItemPath(item: 2)])
            $0.insertItems(at: [ItemPath(item: 0), ItemPath(item: 3)])
        }) { waiter.done($0) }
        #expect(waiter.wait())
        #expect(feedValues(feed) == [[7, 2, 4, 8]])
        let summary = waiter.summaries.withLock { $0.last }
        #expect(summary?.inserted == 2 && summary?.deleted == 2 && summary?.cellsLaidOut == 2)
    }
}
