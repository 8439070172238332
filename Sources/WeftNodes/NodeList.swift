import WeftLayout

/// A node's subnodes, in order: an array, or the nodes a flattened layout places, kept as that layout.
///
/// A node that manages its subnodes has exactly the nodes of its flattened layout, in layout order, and that
/// layout (its cache entry, then its applied layout) already holds each of them. A layout pass hands its
/// subnodes on as the layout itself (``init(placedBy:)``): no array is allocated for them, and none of them is
/// retained for it. Anything that changes a list by hand (adding or removing a subnode, a transition keeping the
/// nodes it removes) turns it into an array first.
struct NodeList: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        /// No nodes (a leaf's list, and most lists a pass reads: nothing to retain or release).
        case empty
        case array([Node])
        /// A layout whose sublayouts are all nodes (checked by whoever makes one). (As one reference, like the
        /// array: the list is then one word, and an update of a layout pass that holds three stays small.)
        case layout(StoredRootLayout)
    }

    private var storage: Storage

    /// No nodes.
    @inline(__always)
    init() {
        storage = .empty
    }

    init(_ nodes: [Node]) {
        storage = nodes.isEmpty ? .empty : .array(nodes)
    }

    /// The nodes `layout` places, in order, kept as the layout; nil where its root is not its storage's first
    /// record (never for a node's layout). Every sublayout of `layout` MUST have a node as its object (the
    /// caller has cast each; a layout with any other sublayout is listed as an array).
    init?(placedBy layout: StoredLayout) {
        guard let root = StoredRootLayout(layout) else { return nil }
        storage = .layout(root)
    }

    var startIndex: Int { 0 }

    var endIndex: Int { count }

    @inline(__always)
    var count: Int {
        switch storage {
        case .empty: 0
        case .array(let nodes): nodes.count
        case .layout(let root): root.layout.sublayoutCount
        }
    }

    @inline(__always)
    var isEmpty: Bool {
        if case .empty = storage { return true }
        return count == 0
    }

    subscript(position: Int) -> Node {
        switch storage {
        case .empty:
            preconditionFailure("index out of range")
        case .array(let nodes):
            return nodes[position]
        case .layout(let root):
            let layout = root.layout
            // (Checked as an array's index is: the layout's records are read by address.)
            precondition(position >= 0 && position < layout.sublayoutCount, "index out of range")
            // Every sublayout has a node (see `init(placedBy:)`).
            let object = layout.unretainedSublayoutObject(position).unsafelyUnwrapped
            return unsafeDowncast(object.takeUnretainedValue(), to: Node.self)
        }
    }

    /// Whether the list is kept as the layout that places its nodes (no array of its own).
    var isKeptAsLayout: Bool {
        if case .layout = storage { return true }
        return false
    }

    /// The nodes as an array (the array itself where the list is one; made from the layout otherwise).
    var array: [Node] {
        switch storage {
        case .empty: []
        case .array(let nodes): nodes
        case .layout: Array(self)
        }
    }

    /// Whether the two lists hold the same nodes in the same order (compared by identity; the same layout's
    /// list without reading it).
    func isSame(as other: NodeList) -> Bool {
        if case .layout(let a) = storage, case .layout(let b) = other.storage, a.isSame(as: b) { return true }
        let count = count
        guard count == other.count else { return false }
        for i in 0..<count where self[i] !== other[i] { return false }
        return true
    }

    /// Removes the nodes that `shouldBeRemoved` picks (the list becomes an array).
    mutating func removeAll(where shouldBeRemoved: (Node) throws -> Bool) rethrows {
        var nodes = array
        try nodes.removeAll(where: shouldBeRemoved)
        self = NodeList(nodes)
    }

    /// Inserts `node` at `index` (the list becomes an array).
    mutating func insert(_ node: Node, at index: Int) {
        var nodes = array
        nodes.insert(node, at: index)
        self = NodeList(nodes)
    }
}
