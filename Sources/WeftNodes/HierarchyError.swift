import WeftLayout

/// Why a change to the node hierarchy was refused. The hierarchy is left as it was.
public enum HierarchyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A hierarchy change was attempted off the apply queue.
    case offApplyQueue(operation: String, node: String)
    /// A call that must not run on the apply queue was made there (it would wait for itself).
    case onApplyQueue(operation: String)
    /// `addSubnode`, `insertSubnode` or `removeFromSupernode` on a node whose subnodes come from its layout.
    case automaticallyManaged(operation: String, node: String)
    /// The change would make a node its own ancestor.
    case cycle(node: String, into: String)
    /// An index outside the subnodes.
    case indexOutOfRange(index: Int, count: Int, node: String)
    /// A node placed in two places: two spots of one layout, or two parents.
    case nodeInTwoPlaces(node: String, first: String, second: String)
    /// A node that does not manage its subnodes automatically places, at `place`, a node that is not one of its
    /// subnodes.
    case notASubnode(node: String, placed: String, place: String)
    /// The layout needed for the change could not be computed.
    case layoutFailed(LayoutError)

    public var description: String {
        switch self {
        case .offApplyQueue(let operation, let node):
            return "\(operation) on \(node) must run on the apply queue of its layout context; it was called on another thread"
        case .onApplyQueue(let operation):
            return "\(operation) must not be called on the apply queue: it waits for work that runs there"
        case .automaticallyManaged(let operation, let node):
            return "\(operation) on \(node) is refused: its subnodes are managed automatically from its layout spec"
        case .cycle(let node, let into):
            return "adding \(node) to \(into) would make \(node) its own ancestor"
        case .indexOutOfRange(let index, let count, let node):
            return "index \(index) is outside 0...\(count) for the subnodes of \(node)"
        case .nodeInTwoPlaces(let node, let first, let second):
            return "\(node) is in two places: \(first) and \(second)"
        case .notASubnode(let node, let placed, let place):
            return "\(placed) is placed in \(place), but it is not a subnode of \(node), which does not manage its subnodes "
                + "automatically: add it with addSubnode, or set automaticallyManagesSubnodes"
        case .layoutFailed(let error):
            return error.description
        }
    }
}
