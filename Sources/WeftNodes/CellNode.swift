import Synchronization
import WeftLayout
import WeftSync

/// The owner of cell nodes (a feed): told when a cell's size changes after it laid itself out again.
public protocol CellNodeOwner: AnyObject, Sendable {
    /// Called on the apply queue after a layout pass of `cell` (for example after `setNeedsLayout`) changed
    /// its size.
    func cellNode(_ cell: CellNode, didChangeSizeFrom oldSize: Size, to newSize: Size)
}

/// An owner of cells, held weakly, in one object that the owner's cells share: setting a cell's owner through
/// it (``CellNode/setOwner(_:)``) retains the link, where a weak reference per cell cost each cell a weak
/// assignment and made every retain of the owner the runtime's slow kind.
public final class CellOwnerLink: Sendable {
    /// The owner, or nil once it went away.
    public weak let owner: (any CellNodeOwner)?

    public init(_ owner: any CellNodeOwner) {
        self.owner = owner
    }
}

/// A node that lives in a feed (Texture's `ASCellNode`): the root of its own hierarchy, laid out in the
/// feed's range for it, telling its owner when its size changes.
open class CellNode: Node, @unchecked Sendable {
    /// The owner's link, published atomically (read and set with no lock, and no allocation per cell).
    private let ownerLink = PublishedReference<CellOwnerLink>()

    /// Where the owner keeps the cell (a feed: the cell's slot in its structure), or -1: the owner finds a cell
    /// that reports a new size here, with no table of its cells. Read and written by the owner on the apply
    /// queue only.
    package var ownerSlot: Int32 = -1

    /// The feed item that holds the cell (a feed's item ID), or 0 for none: a cell node belongs to one item. A
    /// feed claims it (0 to its item, so that of two feeds or two items only one can) and lets it go on its
    /// editing queue.
    package let ownerClaim = Atomic<UInt64>(0)

    public override init() {
        super.init()
        automaticallyManagesSubnodes = true
    }

    /// The feed that holds the cell. (Setting it makes a link for this cell alone; an owner of many cells
    /// shares one through ``setOwner(_:)``.)
    public var owner: (any CellNodeOwner)? {
        get { ownerLink.withCurrent { $0?.owner } }
        set { ownerLink.publish(newValue.map(CellOwnerLink.init)) }
    }

    /// Sets the owner to `link`'s (nil: none).
    public func setOwner(_ link: CellOwnerLink?) {
        ownerLink.publish(link)
    }

    open override func didChangeSize(from oldSize: Size, to newSize: Size) {
        owner?.cellNode(self, didChangeSizeFrom: oldSize, to: newSize)
    }
}
