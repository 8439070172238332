import WeftLayout
import WeftNodes

/// The position of an item in a feed.
public struct ItemPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(item: Int, section: Int = 0) {
        self.item = item
        self.section = section
    }

    public static func < (a: ItemPath, b: ItemPath) -> Bool {
        (a.section, a.item) < (b.section, b.item)
    }

    public var description: String { "section \(section), item \(item)" }
}

/// Makes a cell node; run on a background queue (Texture's node block).
public typealias CellNodeBlock = @Sendable () -> CellNode

/// What a feed shows (Texture's `ASCollectionDataSource`).
///
/// The feed calls these methods on the thread that calls `reloadData()` or `performBatchUpdates`, while the
/// data source holds the state that call describes; it runs the cell blocks on background queues.
public protocol FeedDataSource: AnyObject, Sendable {
    /// The number of sections (default 1).
    func numberOfSections(in feed: FeedNode) -> Int
    /// The number of items in `section`.
    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int
    /// A block that makes the cell for the item at `itemPath`.
    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock
    /// The size range of the item's cell, or nil for the feed's width and an unbounded height (the default).
    func feed(_ feed: FeedNode, sizeRangeForItemAt itemPath: ItemPath) -> SizeRange?
}

extension FeedDataSource {
    public func numberOfSections(in feed: FeedNode) -> Int { 1 }
    public func feed(_ feed: FeedNode, sizeRangeForItemAt itemPath: ItemPath) -> SizeRange? { nil }
}

/// Hears about batch fetching (Texture's `ASCollectionDelegate`). Called on the apply queue.
public protocol FeedDelegate: AnyObject, Sendable {
    /// Whether more content can be fetched now (default true).
    func shouldBatchFetch(for feed: FeedNode) -> Bool
    /// Fetch more content, then add it with `performBatchUpdates` and call `context.completeBatchFetching(_:)`.
    /// The feed asks again only after that.
    func feed(_ feed: FeedNode, willBeginBatchFetchWith context: BatchFetchContext)
}

extension FeedDelegate {
    public func shouldBatchFetch(for feed: FeedNode) -> Bool { true }
}

/// One batch fetch in flight (Texture's `ASBatchContext`).
public final class BatchFetchContext: Sendable {
    private weak let feed: FeedNode?

    init(feed: FeedNode) {
        self.feed = feed
    }

    /// Ends the fetch (MAY be called from any thread): the feed may ask for more again.
    public func completeBatchFetching(_ didComplete: Bool = true) {
        feed?.batchFetchDidComplete(didComplete)
    }
}
