import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
@testable import WeftFeed
import WeftSamples
import WeftSync

/// A feed of `count` cells, each given an exact 320 x 100 range (so every cell is 100 tall).
final class FixedSource: FeedDataSource, @unchecked Sendable {
    let count: Locked<Int>
    init(count: Int) { self.count = Locked(count) }
    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int { count.withLock { $0 } }
    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let item = itemPath.item
        return { ValueCell(value: item) }
    }
    /// Every cell exactly 100 tall.
    func feed(_ feed: FeedNode, sizeRangeForItemAt itemPath: ItemPath) -> SizeRange? {
        SizeRange(exactly: Size(320, 100))
    }
}

/// Records batch fetch requests and answers them when told.
final class Fetcher: FeedDelegate, @unchecked Sendable {
    let contexts = Locked<[BatchFetchContext]>([])
    func feed(_ feed: FeedNode, willBeginBatchFetchWith context: BatchFetchContext) {
        contexts.withLock { $0.append(context) }
    }
    var requests: Int { contexts.withLock { $0.count } }
}

@Suite("Feed ranges and batch fetching")
struct RangeTests {
    func makeFeed(count: Int, delegate: Fetcher? = nil) throws -> (FeedNode, FixedSource) {
        let source = FixedSource(count: count)
        let feed = FeedNode(dataSource: source, delegate: delegate, width: 320, viewportHeight: 200)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        return (feed, source)
    }

    func items(_ feed: FeedNode, _ state: InterfaceState) -> [Int] {
        feed.itemPaths(in: state).map(\.item)
    }

    /// 20 cells, 100 tall each; viewport 200. Texture's full tuning: display 1 screen ahead (leading) and 0.5
    /// behind, preload 2.5 ahead and 1.5 behind; without a downward scroll the leading side counts upward.
    @Test("Ranges follow scripted scroll positions")
    func scripted() throws {
        let (feed, _) = try makeFeed(count: 20)
        // At 0, no scroll yet: visible [0, 200) = items 0, 1. Display: 200 up, 100 down: [-200, 300) = 0...2.
        // Preload: 500 up, 300 down: [-500, 500) = 0...4.
        #expect(items(feed, .visible) == [0, 1])
        #expect(items(feed, .display) == [0, 1, 2])
        #expect(items(feed, .preload) == [0, 1, 2, 3, 4])
        // Down to 500: visible [500, 700) = 5, 6. Display: 100 up, 200 down: [400, 900) = 4...8.
        // Preload: 300 up, 500 down: [200, 1200) = 2...11.
        try ApplyQueue.main.sync { try feed.scroll(to: 500) }
        #expect(items(feed, .visible) == [5, 6])
        #expect(items(feed, .display) == [4, 5, 6, 7, 8])
        #expect(items(feed, .preload) == Array(2...11))
        // Up to 300: visible [300, 500) = 3, 4. Display: 200 up, 100 down: [100, 600) = 1...5.
        // Preload: 500 up, 300 down: [-200, 800) = 0...7.
        try ApplyQueue.main.sync { try feed.scroll(to: 300) }
        #expect(items(feed, .visible) == [3, 4])
        #expect(items(feed, .display) == [1, 2, 3, 4, 5])
        #expect(items(feed, .preload) == Array(0...7))
        // Minimum tuning, still scrolling up: display 0.25 up and down: [250, 550) = 2...5;
        // preload 0.5 up, 0.25 down: [200, 550) = 2...5.
        feed.rangeMode = .minimum
        try ApplyQueue.main.sync { try feed.scroll(to: 300) }
        #expect(items(feed, .display) == [2, 3, 4, 5])
        #expect(items(feed, .preload) == [2, 3, 4, 5])
    }

    @Test("Cells are told when they enter and leave each range")
    func events() throws {
        let (feed, _) = try makeFeed(count: 20)
        let cell0 = try #require(feed.cellNode(at: ItemPath(item: 0)) as? ValueCell)
        let cell9 = try #require(feed.cellNode(at: ItemPath(item: 9)) as? ValueCell)
        #expect(cell0.events == ["+preload", "+display", "+visible"])
        #expect(cell9.events.isEmpty)
        try ApplyQueue.main.sync { try feed.scroll(to: 500) }
        // Cell 0 (0...100) leaves everything: the preload range now starts at 200.
        #expect(cell0.events == ["+preload", "+display", "+visible", "-visible", "-display", "-preload"])
        // Cell 9 (900...1000) enters preload [200, 1200) only.
        #expect(cell9.events == ["+preload"])
        #expect(cell9.interfaceState == .preload)
    }

    /// 10 cells, 1,000 points of content, viewport 200, leadingScreensForBatching 2: a fetch starts when 400
    /// points or less remain below the viewport, and not again until it completes.
    @Test("Batch fetching against scripted scroll positions")
    func batchFetching() throws {
        let fetcher = Fetcher()
        let (feed, source) = try makeFeed(count: 10, delegate: fetcher)
        #expect(fetcher.requests == 0)  // 1000 - 200 - 0 = 800 > 400
        try ApplyQueue.main.sync { try feed.scroll(to: 300) }
        #expect(fetcher.requests == 0)  // 500 > 400
        try ApplyQueue.main.sync { try feed.scroll(to: 400) }
        #expect(fetcher.requests == 1)  // 400 <= 400
        try ApplyQueue.main.sync { try feed.scroll(to: 450) }
        #expect(fetcher.requests == 1, "not again while the fetch is in flight")
        #expect(feed.isFetchingBatch)
        // The fetch adds 10 items and completes: 2,000 points now, 2000 - 200 - 450 = 1350 > 400.
        source.count.withLock { $0 = 20 }
        let waiter = Waiter()
        try feed.performBatchUpdates({ $0.insertItems(at: (10..<20).map { ItemPath(item: $0) }) }) { waiter.done($0) }
        #expect(waiter.wait())
        fetcher.contexts.withLock { $0.first }?.completeBatchFetching(true)
        try settleAll()
        #expect(fetcher.requests == 1)
        #expect(!feed.isFetchingBatch)
        // Scrolling up never fetches, even near the end.
        try ApplyQueue.main.sync { try feed.scroll(to: 1700) }
        #expect(fetcher.requests == 2)  // down to 1700: 2000 - 200 - 1700 = 100
        fetcher.contexts.withLock { $0.last }?.completeBatchFetching(true)
        try settleAll()
        try ApplyQueue.main.sync { try feed.scroll(to: 1650) }
        #expect(fetcher.requests == 2, "scrolling up does not fetch")
        // Content shorter than the viewport fetches at once.
        let small = Fetcher()
        _ = try makeFeed(count: 1, delegate: small)
        #expect(small.requests == 1)
    }

    @Test("A cell that lays itself out again moves the cells below it; a width change lays out all")
    func relayout() throws {
        let source = ValueSource([[1, 2, 3]])
        let feed = FeedNode(dataSource: source, width: 320, viewportHeight: 480)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        let photoSource = PhotoSource(count: 3)
        let photoFeed = FeedNode(dataSource: photoSource, width: 375, viewportHeight: 600)
        try photoFeed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        let second = try #require(photoFeed.cellNode(at: ItemPath(item: 1)) as? PhotoCellNode)
        let third = try #require(photoFeed.frameOfItem(at: ItemPath(item: 2)))
        let before = try #require(photoFeed.frameOfItem(at: ItemPath(item: 1)))
        let laidOut = photoFeed.statistics.cellsLaidOut
        // One more line of comments in the second cell: 13 pt x 1.25 = 16.25 taller, 16.5 on the grid at most.
        second.commentsNode.text = (second.commentsNode.text ?? "") + "\nanother comment"
        try settleAll()
        let after = try #require(photoFeed.frameOfItem(at: ItemPath(item: 1)))
        let grown = after.size.height - before.size.height
        #expect(grown > 0)
        #expect(photoFeed.frameOfItem(at: ItemPath(item: 2))?.origin.y == third.origin.y + grown)
        #expect(photoFeed.contentHeight == third.maxY + grown)
        #expect(photoFeed.statistics.cellsLaidOut == laidOut, "the cell laid itself out alone, not through the feed")
        // A new width lays every cell out again.
        photoFeed.setWidth(320)
        try settleAll()
        #expect(photoFeed.statistics.cellsLaidOut == laidOut + 3)
        #expect(photoFeed.frameOfItem(at: ItemPath(item: 0))?.size.width == 320)
    }

    @Test("Parallel layout gives the same frames as serial layout")
    func parallelEqualsSerial() throws {
        let source = PhotoSource(count: 200)
        let feed = FeedNode(dataSource: source, width: 375, viewportHeight: 600)
        let waiter = Waiter()
        try feed.reloadData { waiter.done($0) }
        #expect(waiter.wait())
        let range = SizeRange(min: Size(375, 0), max: Size(375, .infinity))
        for (i, cell) in feed.cellNodes.joined().enumerated() {
            // The same post laid out alone, on this thread.
            let twin = PhotoCellNode(model: source.data.post(i), loader: { _, _ in })
            let serial = try twin.layoutThatFits(range).flattened().map { "\($0.element.identifier ?? "") \($0.frame)" }
            let parallel = try #require(cell.appliedLayout).flattened().map { "\($0.element.identifier ?? "") \($0.frame)" }
            #expect(serial == parallel, "cell \(i)")
        }
    }
}

/// Photo cells of synthetic posts (images never arrive).
final class PhotoSource: FeedDataSource, @unchecked Sendable {
    let data = PhotoFeedData(seed: 3)
    let count: Int
    init(count: Int) { self.count = count }
    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int { count }
    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let post = data.post(itemPath.item)
        return { PhotoCellNode(model: post, loader: { _, _ in }) }
    }
}
