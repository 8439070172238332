import WeftLayout

/// The owner of cell nodes (a feed): told when a cell's size changes after it laid itself out again.
public protocol CellNodeOwner: AnyObject, Sendable {
    /// Called on the apply queue after a layout pass of `cell` (for example after `setNeedsLayout`) changed
    /// its size.
    func cellNode(_ cell: CellNode, didChangeSizeFrom oldSize: Size, to newSize: Size)
}

/// A node that lives in a feed (Texture's `ASCellNode`): the root of its own hierarchy, laid out in the
/// feed's range for it, telling its owner when its size changes.
open class CellNode: Node, @unchecked Sendable {
    private let ownerBox = Locked<WeakOwner>(WeakOwner())

    private struct WeakOwner {
        weak var owner: (any CellNodeOwner)?
    }

    public override init() {
        super.init()
        automaticallyManagesSubnodes = true
    }

    /// The feed that holds the cell.
    public var owner: (any CellNodeOwner)? {
        get { ownerBox.withLock { $0.owner } }
        set { ownerBox.withLock { $0.owner = newValue } }
    }

    open override func didChangeSize(from oldSize: Size, to newSize: Size) {
        owner?.cellNode(self, didChangeSizeFrom: oldSize, to: newSize)
    }
}
