import Dispatch
import WeftLayout
import WeftNodes
import WeftSync

/// A scrolling list of thousands of cell nodes, in sections (Texture's `ASTableNode`/`ASCollectionNode` with
/// its data controller, without UIKit).
///
/// Threading contract:
/// - ``reloadData(completion:)``, ``performBatchUpdates(_:completion:)`` and ``setWidth(_:)`` MAY be called
///   from any thread. Each change is checked at once against the data source (an invalid one throws and the
///   feed stays as it was); then, on a serial editing queue, its new cells are made and laid out in parallel on
///   every core, and the result is committed on the apply queue of the feed's ``LayoutContext`` in one turn.
///   Changes are committed in the order they were checked, from whatever threads. A cell block's cell that is
///   already in another place (a cell node belongs to one item) is refused when the blocks have run: the
///   change's completion gets the error, and the feed stays as it was.
/// - The data source is called on the thread that makes the change, with no lock of the feed's held: it may
///   call back into the feed. Cell blocks run on background queues.
/// - Scrolling, the viewport and reading the committed state happen on the apply queue (reads from elsewhere
///   hop onto it).
/// - A cell that calls `setNeedsLayout` lays itself out again alone; when its height changes, the content
///   height and the offsets of the cells below follow.
public final class FeedNode: Node, CellNodeOwner, @unchecked Sendable {
    // @unchecked: `plan` and `settings` are Locked; `editing` is confined to the editing queue (the
    // sequencer's); `live` to the apply queue.

    struct Settings {
        weak var dataSource: (any FeedDataSource)?
        weak var delegate: (any FeedDelegate)?
        var width: Double
        var viewportHeight: Double
        var rangeMode: RangeMode = .full
        var tunings = RangeTunings()
        var leadingScreensForBatching = 2.0
        var commitTurnBudget = 0.004
        var itemLimit = FeedNode.defaultItemLimit
    }

    /// The structure after every accepted change, for checking the next one, the width cells are laid out for,
    /// and the ticket of the next change (the order changes run in).
    struct Plan {
        var structure = FeedStructure()
        var nextID: ItemID = 1
        var width: Double
        var nextTicket: UInt64 = 0
        /// Tickets below this were taken before a change was refused on the editing queue, so they were
        /// planned on the structure it would have made: their changes are refused too, with `refusal` named.
        var refusedBelow: UInt64 = 0
        var refusal: FeedError?

        mutating func takeTicket() -> UInt64 {
            defer { nextTicket += 1 }
            return nextTicket
        }
    }

    /// The editing queue's view: the structure of the changes run so far, and their cells by item.
    struct Editing {
        var cells: [ItemID: CellNode] = [:]
        var structure = FeedStructure()
        var ranges: [ItemID: SizeRange] = [:]

        /// Where `id` is, by a search of the structure (for error messages).
        func path(of id: ItemID) -> ItemPath? {
            var found: Int?
            var index = 0
            structure.items.forEachSlot(from: 0) { slot in
                if structure.items.id(ofSlot: slot) == id {
                    found = index
                    return false
                }
                index += 1
                return true
            }
            return found.map { structure.path(ofFlat: $0) }
        }
    }

    /// The committed state, on the apply queue.
    struct Live {
        /// Sections and items in order; each item's weight is its cell's height, so the weights before an item
        /// are its top offset.
        var structure = FeedStructure()
        /// Each item's cell, by its slot in `structure.items` (nil for a free slot); each cell keeps its slot in
        /// its `ownerSlot`. (An array in pages, so that no commit rehashes or copies a table of the whole feed.)
        var cellBySlot = PagedArray<CellNode?>()
        /// The link the feed's cells reach it through (made at the first commit).
        var cellLink: CellOwnerLink?
        var contentHeight: Double { structure.items.totalWeight }
        var scrollOffset = 0.0
        var direction = ScrollDirection.none
        /// The range state of each item in a range, by slot (items in none are not here), and a spare table the
        /// next update fills (kept for its capacity).
        var states: [ItemSequence.Slot: InterfaceState] = [:]
        var spareStates: [ItemSequence.Slot: InterfaceState] = [:]
        var fetching = false
        /// Commits received and not yet done, oldest first (``FeedNode/drive()`` works through them).
        var commits: [Commit] = []
        var nextCommit = 0
        /// How many of the oldest commit's new cells are in place.
        var prepared = 0
        /// The cells put in place so far, in order (their heights are read at the commit).
        var preparedCells: [CellNode] = []
        var preparedSeconds = 0.0
        var preparedTurns = 0
        /// What the last commit took per item (its edits, the cells it removed and laid out): what the next one
        /// is predicted to take.
        var commitSecondsPerItem: Double?
        /// Whether the next commit was already put off to a turn of its own (it is not put off twice).
        var commitDeferred = false
        var driving = false
    }

    let settings: Locked<Settings>
    let plan: Locked<Plan>
    let sequencer = ChangeSequencer(label: "weft.feed.editing")
    var editing = Editing()
    var live = Live()
    let feedStatistics = Locked(FeedStatistics())

    /// A feed `width` points wide showing `viewportHeight` points at a time, laying out and committing in
    /// `context` (its scale, apply queue and statistics; its cells join it).
    public init(
        dataSource: any FeedDataSource, delegate: (any FeedDelegate)? = nil, width: Double, viewportHeight: Double,
        context: LayoutContext = .default
    ) {
        settings = Locked(Settings(dataSource: dataSource, delegate: delegate, width: width, viewportHeight: viewportHeight))
        plan = Locked(Plan(width: width))
        super.init()
        identifier = "feed"
        self.context = context
    }

    deinit {
        // Its cells may go into another feed now.
        for (id, cell) in editing.cells {
            _ = cell.ownerClaim.compareExchange(expected: id, desired: 0, ordering: .acquiringAndReleasing)
        }
    }

    /// The apply queue of the feed's context.
    var applyQueue: ApplyQueue { context.applyQueue }

    public var dataSource: (any FeedDataSource)? { settings.withLock { $0.dataSource } }
    public var delegate: (any FeedDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }

    /// The width cells are laid out for (their default range is this width by an unbounded height).
    public var width: Double { settings.withLock { $0.width } }

    /// The viewport's height: one screenful.
    public var viewportHeight: Double { settings.withLock { $0.viewportHeight } }

    /// How far ahead of the viewport (in screenfuls) content must reach before more is fetched (default 2).
    public var leadingScreensForBatching: Double {
        get { settings.withLock { $0.leadingScreensForBatching } }
        set { settings.withLock { $0.leadingScreensForBatching = newValue } }
    }

    /// How long one apply-queue turn may spend putting the new cells of a change in place before the rest
    /// waits for the next turn, in seconds (default 0.004: a quarter of a 60 Hz frame). The change itself (the
    /// feed's new structure, heights and offsets) is always committed in one turn; the new cells' hierarchies
    /// go in before it, in as many turns as they need, unseen.
    public var commitTurnBudget: Double {
        get { settings.withLock { $0.commitTurnBudget } }
        set { settings.withLock { $0.commitTurnBudget = newValue } }
    }

    /// The most sections, and the most items in all, the feed takes from its data source (default
    /// ``defaultItemLimit``): a change whose counts exceed it is refused with a ``FeedError`` naming them, and the
    /// feed stays as it was. The feed makes a cell node for every item, so counts beyond any memory (a data
    /// source answering `Int.max`) trapped when the feed reserved room for them.
    public var itemLimit: Int {
        get { settings.withLock { $0.itemLimit } }
        set { settings.withLock { $0.itemLimit = max(0, newValue) } }
    }

    /// The default ``itemLimit``: 1,000,000 (a cell node each, about a gigabyte of nodes and layouts for a
    /// simple cell).
    public static let defaultItemLimit = 1_000_000

    /// The range tuning mode (default `.full`).
    public var rangeMode: RangeMode {
        get { settings.withLock { $0.rangeMode } }
        set { settings.withLock { $0.rangeMode = newValue } }
    }

    /// The display and preload tunings (defaults are Texture's).
    public var rangeTunings: RangeTunings {
        get { settings.withLock { $0.tunings } }
        set { settings.withLock { $0.tunings = newValue } }
    }

    /// Counters of the feed's work so far.
    public var statistics: FeedStatistics { feedStatistics.withLock { $0 } }

    // MARK: Reading the committed state (on the apply queue; other threads wait for it)

    /// The number of sections committed.
    public var numberOfSections: Int { applyQueue.sync { live.structure.sectionCount } }

    /// The number of items committed in `section` (0 for a section that does not exist).
    public func numberOfItems(inSection section: Int) -> Int {
        applyQueue.sync { live.structure.count(inSection: section) }
    }

    /// The cell committed at `itemPath`, if there is one.
    public func cellNode(at itemPath: ItemPath) -> CellNode? {
        applyQueue.sync {
            guard let flat = live.structure.flatIndex(of: itemPath) else { return nil }
            return live.cellBySlot[Int(live.structure.items.slot(at: flat))]
        }
    }

    /// Every committed cell, section by section.
    public var cellNodes: [[CellNode]] {
        applyQueue.sync { live.structure.bySection { live.cellBySlot[Int($0)] } }
    }

    /// The frame of the item at `itemPath` in the feed's content (cells are stacked top to bottom).
    public func frameOfItem(at itemPath: ItemPath) -> Rect? {
        applyQueue.sync {
            guard let flat = live.structure.flatIndex(of: itemPath) else { return nil }
            let items = live.structure.items
            let slot = items.slot(at: flat)
            return Rect(x: 0, y: items.offset(ofSlot: slot), width: live.cellBySlot[Int(slot)]?.frame.size.width ?? 0,
                        height: items.weight(ofSlot: slot))
        }
    }

    /// The height of all committed cells together.
    public var contentHeight: Double { applyQueue.sync { live.contentHeight } }

    /// The scroll offset: the content's y at the top of the viewport.
    public var scrollOffset: Double { applyQueue.sync { live.scrollOffset } }

    /// An estimate of the memory the feed's own bookkeeping takes, in bytes: its structure as planned, as
    /// edited and as committed, and its tables of cells and ranges, capacity included (hash tables are taken at
    /// their load factor of 3/4); not the cells themselves. Waits for the changes submitted so far. MAY be called
    /// from any thread but a cell block (the blocks run within the editing queue's work, which this waits for).
    public var bookkeepingBytes: Int {
        func table<Key, Value>(_ dictionary: [Key: Value]) -> Int {
            dictionary.capacity * 4 / 3 * (MemoryLayout<Key>.stride + MemoryLayout<Value>.stride + 1)
        }
        let planned = plan.withLock { $0.structure.storageBytes }
        let edited = sequencer.sync {
            editing.structure.storageBytes + table(editing.cells) + table(editing.ranges)
        }
        let committed = applyQueue.sync {
            live.structure.storageBytes + live.cellBySlot.storageBytes + table(live.states)
                + table(live.spareStates)
        }
        return planned + edited + committed
    }

    // MARK: CellNodeOwner

    /// A cell laid itself out again and changed size: its height and the offsets below follow. Runs on the
    /// apply queue (where cells report it); called elsewhere, it is queued there.
    public func cellNode(_ cell: CellNode, didChangeSizeFrom oldSize: Size, to newSize: Size) {
        guard applyQueue.isCurrent else {
            applyQueue.enqueue { self.cellNode(cell, didChangeSizeFrom: oldSize, to: newSize) }
            return
        }
        let slot = cell.ownerSlot
        guard slot >= 0, slot < live.cellBySlot.count, live.cellBySlot[Int(slot)] === cell else { return }
        live.structure.items.setWeight(newSize.height, ofSlot: slot)
        feedStatistics.withLock { $0.cellResizes += 1 }
        updateRangesAndFetch()
    }
}

/// Counters of a feed's work.
public struct FeedStatistics: Sendable {
    /// Cells laid out in the background (new cells, reloads, width changes).
    public var cellsLaidOut = 0
    /// Wall time of the background layout stages, in seconds.
    public var layoutSeconds = 0.0
    /// Changes committed on the apply queue.
    public var commits = 0
    /// Items inserted and deleted by commits.
    public var itemsInserted = 0
    public var itemsDeleted = 0
    /// Cells that changed height after laying themselves out again.
    public var cellResizes = 0
    /// Batch fetches started.
    public var batchFetches = 0
    /// Edits of the committed structure: an item or section inserted, removed or given a new cell (a reload of
    /// all data counts each item). What a commit costs beyond its cells: each edit is O(log n).
    public var structureEdits = 0
    /// Cells the range updates looked at (those in the preload range, from the first found by a search).
    public var rangeVisits = 0

    /// Cells laid out per second of background layout.
    public var cellsPerSecond: Double { layoutSeconds > 0 ? Double(cellsLaidOut) / layoutSeconds : 0 }
}
