import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
@testable import WeftFeed
import WeftSamples

@Suite("The feed's sequence of items")
struct ItemSequenceTests {
    /// Positions, IDs, offsets and searches checked against an array after every step of random inserts,
    /// removals and weight changes. Weights are small integers, so every sum is exact.
    @Test("Random edits match an array model")
    func model() {
        var rng = SplitMix64(seed: 35)
        var sequence = ItemSequence()
        var model: [(id: UInt64, weight: Double)] = []
        var nextID: UInt64 = 1
        for step in 0..<3000 {
            let choice = rng.next() % 10
            if choice < 4 || model.isEmpty {
                let index = Int(rng.next() % UInt64(model.count + 1))
                let weight = Double(rng.next() % 7)
                sequence.insert(nextID, weight: weight, at: index)
                model.insert((nextID, weight), at: index)
                nextID += 1
            } else if choice == 4 {
                // A run of 1 to 6, each weighing its ID mod 7.
                let index = Int(rng.next() % UInt64(model.count + 1))
                let ids = (nextID..<nextID + 1 + rng.next() % 6).map { $0 }
                sequence.insert(contentsOf: ids, at: index) { id, _ in Double(id % 7) }
                model.insert(contentsOf: ids.map { ($0, Double($0 % 7)) }, at: index)
                nextID += UInt64(ids.count)
            } else if choice < 7 {
                let index = Int(rng.next() % UInt64(model.count))
                let removed = sequence.remove(at: index)
                let expected = model.remove(at: index)
                #expect(removed.id == expected.id && removed.weight == expected.weight)
            } else if choice == 7 {
                let index = Int(rng.next() % UInt64(model.count))
                let count = Int(rng.next() % UInt64(min(6, model.count - index) + 1))
                var removed: [UInt64] = []
                sequence.remove(count: count, at: index) { id, _, _ in removed.append(id) }
                #expect(removed == model[index..<index + count].map(\.id))
                model.removeSubrange(index..<index + count)
            } else {
                let index = Int(rng.next() % UInt64(model.count))
                let weight = Double(rng.next() % 7)
                sequence.setWeight(weight, ofSlot: sequence.slot(at: index))
                model[index].weight = weight
            }
            guard step % 100 == 0 || step > 2950 else { continue }
            #expect(sequence.count == model.count)
            #expect(sequence.ids == model.map(\.id))
            #expect(sequence.totalWeight == model.reduce(0) { $0 + $1.weight })
            var offset = 0.0
            for (index, item) in model.enumerated() {
                let slot = sequence.slot(at: index)
                #expect(sequence.index(ofSlot: slot) == index)
                #expect(sequence.offset(ofSlot: slot) == offset)
                #expect(sequence.offset(before: index) == offset)
                // The first item ending after a point inside this one's extent is this one (or an earlier one
                // only if this one has no extent).
                if item.weight > 0 { #expect(sequence.firstIndex(endingAfter: offset + item.weight / 2) == index) }
                offset += item.weight
            }
            #expect(sequence.firstIndex(endingAfter: offset) == model.count)
        }
    }

    /// A treap's depth is O(log n) whatever the order of insertions: appending in order (a plain search tree's
    /// worst case) and inserting at random places both stay far below a list's n.
    @Test("Depth stays logarithmic")
    func depth() {
        let n = 100_000
        var appended = ItemSequence()
        appended.append(contentsOf: (0..<UInt64(n)).lazy.map { ($0, 1) })
        var random = ItemSequence()
        var rng = SplitMix64(seed: 36)
        for i in 0..<n { random.insert(UInt64(i), at: Int(rng.next() % UInt64(i + 1))) }
        // log2(100,000) is about 17; a treap's expected depth is about 2 ln n = 23.
        let bound = 4 * 17
        #expect(maxDepth(appended) <= bound)
        #expect(maxDepth(random) <= bound)
    }

    /// The deepest node's depth, by climbing from every slot.
    func maxDepth(_ sequence: ItemSequence) -> Int {
        var deepest = 0
        for slot in 0..<sequence.slotCount {
            var depth = 1
            var node = ItemSequence.Slot(slot)
            while sequence.nodes[Int(node)].parent >= 0 {
                node = sequence.nodes[Int(node)].parent
                depth += 1
            }
            deepest = max(deepest, depth)
        }
        return deepest
    }
}

@Suite("Feed work at scale")
struct FeedScaleTests {
    func makeFeed(count: Int) throws -> (FeedNode, FixedSource) {
        let source = FixedSource(count: count)
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 200)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        return (feed, source)
    }

    /// What inserting, deleting, scrolling and resizing cost in a feed of 1,000 and of 10,000 cells, counted:
    /// the same at both sizes (each edit is O(log n), and a scroll step looks at the cells in its preload range,
    /// found by a search).
    @Test("Edits and range work do not grow with the feed")
    func countsDoNotGrow() throws {
        var figures: [[Int]] = []
        for n in [1000, 10_000] {
            let (feed, source) = try makeFeed(count: n)
            let before = feed.statistics
            // Insert 100 in the middle, then delete them.
            source.count.withLock { $0 = n + 100 }
            let paths = (n / 2..<n / 2 + 100).map { ItemPath(item: $0) }
            let inserted = Waiter()
            try feed.performBatchUpdates({ $0.insertItems(at: paths) }) { inserted.done($0) }
            #expect(inserted.wait())
            let afterInsert = feed.statistics
            source.count.withLock { $0 = n }
            let deleted = Waiter()
            try feed.performBatchUpdates({ $0.deleteItems(at: paths) }) { deleted.done($0) }
            #expect(deleted.wait())
            let afterDelete = feed.statistics
            // Scroll one screen (200) in the middle; cells are 100 tall.
            let scrolled = try ApplyQueue.main.sync { () throws -> Int in
                try feed.scroll(to: Double(n) * 50)
                let start = feed.statistics.rangeVisits
                try feed.scroll(to: Double(n) * 50 + 200)
                return feed.statistics.rangeVisits - start
            }
            // One cell in the middle grows by 10: the cells below move by 10.
            let cell = try #require(feed.cellNode(at: ItemPath(item: n / 2)))
            let below = try #require(feed.frameOfItem(at: ItemPath(item: n - 1)))
            ApplyQueue.main.sync { feed.cellNode(cell, didChangeSizeFrom: Size(320, 100), to: Size(320, 110)) }
            #expect(feed.frameOfItem(at: ItemPath(item: n - 1))?.origin.y == below.origin.y + 10)
            #expect(feed.contentHeight == Double(n) * 100 + 10)
            figures.append([
                afterInsert.structureEdits - before.structureEdits, afterDelete.structureEdits - afterInsert.structureEdits,
                scrolled,
            ])
        }
        // 100 edits each way; the scroll looks at the preload range after it: Texture's full tuning with a
        // 200-point viewport scrolling down, 300 up and 500 down around [y, y + 200): 1,000 points, 10 cells.
        #expect(figures[0] == [100, 100, 10])
        #expect(figures[1] == figures[0])
    }
}
