import Dispatch
import WeftFeed
import WeftLayout
import WeftNodes
import WeftText

/// The photo feed of `weft demo`: synthetic posts whose locations and images arrive late on background
/// threads, loaded page by page through batch fetching while the feed is scrolled from top to bottom.
public final class PhotoFeedDemo: FeedDataSource, FeedDelegate, @unchecked Sendable {
    // @unchecked: mutable state is in `state` (Locked); the rest is immutable.

    public struct Options: Sendable {
        public var cells = 1000
        public var width = 375.0
        public var viewportHeight = 667.0
        public var seed: UInt64 = 1
        /// Posts in the first load and in each batch fetch.
        public var pageSize = 100
        /// How many points each scroll step moves (a third of a screen by default).
        public var scrollStep: Double?
        /// What measures the cells' texts (nil: ``TextNode/standardMeasurer``, real fonts).
        public var textMeasurer: (any TextMeasurer)?

        public init() {}
    }

    /// What a run did.
    public struct Report: Sendable {
        public var options: Options
        public var feed: FeedStatistics
        public var nodes: NodeStatistics.Snapshot
        public var applyQueue: ApplyQueue.Statistics
        public var scrollSteps: Int
        public var seconds: Double
        public var contentHeight: Double
        public var cores: Int
    }

    public let options: Options
    public let data: PhotoFeedData
    private let state = Locked(State())
    /// Deliveries (images, locations, pages) scheduled and not yet made.
    private let deliveries = DispatchGroup()
    private let random = Locked<UInt64>(0)

    private struct State {
        var loaded = 0
    }

    public init(options: Options) {
        self.options = options
        data = PhotoFeedData(seed: options.seed)
        random.withLock { $0 = options.seed }
    }

    /// A pseudo-random delay of a few milliseconds, like a network or geocoder.
    private func delay() -> DispatchTimeInterval {
        let value = random.withLock { state -> UInt64 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        return .microseconds(300 + Int(value % 2700))
    }

    /// Answers image requests after a short delay on a background queue.
    public var loader: NetworkImageNode.Loader {
        { [data, deliveries] url, completion in
            deliveries.enter()
            DispatchQueue.global().asyncAfter(deadline: .now() + self.delay()) {
                completion(data.image(for: url))
                deliveries.leave()
            }
        }
    }

    // MARK: FeedDataSource

    public func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int {
        state.withLock { $0.loaded }
    }

    public func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let post = data.post(itemPath.item)
        let location = data.location(itemPath.item)
        let loader = self.loader
        let delay = self.delay()
        let deliveries = self.deliveries
        let measurer = options.textMeasurer
        return {
            let cell = PhotoCellNode(model: post, loader: loader, measurer: measurer)
            // Reverse geocoding starts with the cell and answers later, on a background thread (holding the cell
            // until then, a few milliseconds).
            deliveries.enter()
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                cell.setLocation(location)
                deliveries.leave()
            }
            return cell
        }
    }

    // MARK: FeedDelegate

    public func shouldBatchFetch(for feed: FeedNode) -> Bool {
        state.withLock { $0.loaded < options.cells }
    }

    public func feed(_ feed: FeedNode, willBeginBatchFetchWith context: BatchFetchContext) {
        // The next page arrives from "the network" a moment later.
        deliveries.enter()
        DispatchQueue.global().asyncAfter(deadline: .now() + delay()) {
            defer { self.deliveries.leave() }
            let (start, end) = self.state.withLock { state -> (Int, Int) in
                let start = state.loaded
                state.loaded = min(self.options.cells, start + self.options.pageSize)
                return (start, state.loaded)
            }
            do {
                try feed.performBatchUpdates({ $0.insertItems(at: (start..<end).map { ItemPath(item: $0) }) }) { _ in
                    context.completeBatchFetching(true)
                }
            } catch {
                context.completeBatchFetching(false)
            }
        }
    }

    // MARK: Running

    /// Loads the first page, scrolls to the end (fetching the rest on the way) while data arrives, waits for
    /// everything to settle and reports. `progress` gets (cells loaded, offset, content height) now and then.
    public func run(progress: (Int, Double, Double) -> Void = { _, _, _ in }) throws -> (FeedNode, Report) {
        let queue = ApplyQueue.main
        queue.resetStatistics()
        let nodesBefore = NodeStatistics.shared.snapshot
        let start = DispatchTime.now().uptimeNanoseconds
        let feed = FeedNode(dataSource: self, delegate: self, width: options.width, viewportHeight: options.viewportHeight)
        state.withLock { $0.loaded = min(options.cells, options.pageSize) }
        let loaded = DispatchSemaphore(value: 0)
        try feed.reloadData { _ in loaded.signal() }
        loaded.wait()

        let step = options.scrollStep ?? options.viewportHeight / 3
        var offset = 0.0
        var steps = 0
        while true {
            let (height, fetching) = queue.sync { () -> (Double, Bool) in
                try? feed.scroll(to: offset)
                return (feed.contentHeight, feed.isFetchingBatch)
            }
            steps += 1
            let all = state.withLock { $0.loaded } >= options.cells
            let bottom = max(0, height - options.viewportHeight)
            if steps % 16 == 0 { progress(state.withLock { $0.loaded }, offset, height) }
            if offset >= bottom {
                if all && !fetching { break }
                // At the end while a page is on its way: give it a moment.
                _ = try queue.settle(timeout: 30)
            }
            offset = min(offset + step, max(0, bottom))
        }
        // Everything scheduled arrives, and everything it set off is applied.
        _ = deliveries.wait(timeout: .now() + 60)
        _ = try queue.settle(timeout: 60)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let nodesAfter = NodeStatistics.shared.snapshot
        let report = Report(
            options: options, feed: feed.statistics, nodes: nodesAfter.subtracting(nodesBefore),
            applyQueue: queue.statistics, scrollSteps: steps, seconds: seconds, contentHeight: feed.contentHeight,
            cores: activeProcessorCount())
        return (feed, report)
    }
}

#if canImport(Glibc)
import Glibc
import WeftSync
#endif

/// The number of processors this process may run on.
public func activeProcessorCount() -> Int {
    #if canImport(Glibc)
    return Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    #else
    return 1
    #endif
}
