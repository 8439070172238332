/// The changes that turn one ordered list of subnodes into another: removals, insertions and moves.
///
/// Nodes that keep their relative order (a longest common subsequence on node identity) stay put; every other
/// node present in both lists is a move. Computed where the layout was computed, off the apply queue.
public struct HierarchyDiff: Sendable, Equatable, CustomStringConvertible {
    /// A node that leaves, and its index in the old list.
    public struct Removal: Sendable, Equatable {
        public let node: Node
        public let index: Int
        public static func == (a: Removal, b: Removal) -> Bool { a.node === b.node && a.index == b.index }
    }

    /// A node that enters, and its index in the new list.
    public struct Insertion: Sendable, Equatable {
        public let node: Node
        public let index: Int
        public static func == (a: Insertion, b: Insertion) -> Bool { a.node === b.node && a.index == b.index }
    }

    /// A node that stays but changes place, with its old and new index.
    public struct Move: Sendable, Equatable {
        public let node: Node
        public let from: Int
        public let to: Int
        public static func == (a: Move, b: Move) -> Bool { a.node === b.node && a.from == b.from && a.to == b.to }
    }

    /// The nodes that leave, with their old indices.
    public var removals: [Removal] {
        switch removed {
        case .listed(let list): list
        case .all(let old): old.enumerated().map { Removal(node: $1, index: $0) }
        }
    }

    /// The nodes that enter, with their new indices.
    public var insertions: [Insertion] {
        switch inserted {
        case .listed(let list): list
        case .all(let new): new.enumerated().map { Insertion(node: $1, index: $0) }
        }
    }

    public let moves: [Move]

    /// How many nodes leave and enter (without building the lists).
    public var removalCount: Int { removed.count }
    public var insertionCount: Int { inserted.count }

    /// Calls `body` with each node that leaves, in old order (without building the list of removals).
    func forEachRemovedNode(_ body: (Node) throws -> Void) rethrows {
        switch removed {
        case .listed(let list): for removal in list { try body(removal.node) }
        case .all(let old): for node in old { try body(node) }
        }
    }

    public var isEmpty: Bool { removalCount == 0 && insertionCount == 0 && moves.isEmpty }

    /// A list of changes, or every node of a list (a diff from or to no subnodes, the common case of a new cell,
    /// keeps the list it was given: no allocation of its own).
    private enum Changes<Change: Sendable>: Sendable {
        case listed([Change])
        case all(NodeList)

        var count: Int {
            switch self {
            case .listed(let list): list.count
            case .all(let nodes): nodes.count
            }
        }
    }

    private let removed: Changes<Removal>
    private let inserted: Changes<Insertion>

    /// The diff from `old` to `new`. Each list holds each node at most once.
    public init(from old: [Node], to new: [Node]) {
        self.init(from: NodeList(old), to: NodeList(new))
    }

    /// The diff from `old` to `new` (see ``init(from:to:)-([Node],[Node])``).
    init(from old: NodeList, to new: NodeList) {
        // The common cases allocate nothing beyond their result (from or to nothing: not even that).
        if old.isSame(as: new) {
            (removed, inserted, moves) = (.listed([]), .listed([]), [])
            return
        }
        if old.isEmpty {
            (removed, inserted, moves) = (.listed([]), .all(new), [])
            return
        }
        if new.isEmpty {
            (removed, inserted, moves) = (.all(old), .listed([]), [])
            return
        }
        let small = old.count + new.count <= 32
        var oldIndex: [ObjectIdentifier: Int] = [:]
        var newIndex: [ObjectIdentifier: Int] = [:]
        if !small {
            oldIndex.reserveCapacity(old.count)
            for (i, node) in old.enumerated() { oldIndex[ObjectIdentifier(node)] = i }
            newIndex.reserveCapacity(new.count)
            for (i, node) in new.enumerated() { newIndex[ObjectIdentifier(node)] = i }
        }
        func index(of node: Node, in list: NodeList, _ map: [ObjectIdentifier: Int]) -> Int? {
            small ? list.firstIndex { $0 === node } : map[ObjectIdentifier(node)]
        }
        removed = .listed(old.enumerated().compactMap { i, node in
            index(of: node, in: new, newIndex) == nil ? Removal(node: node, index: i) : nil
        })
        inserted = .listed(new.enumerated().compactMap { i, node in
            index(of: node, in: old, oldIndex) == nil ? Insertion(node: node, index: i) : nil
        })
        // Nodes in both lists, in new order, with their old positions: the longest increasing run of old
        // positions is the longest common subsequence; everything else in common moved.
        let common = new.enumerated().compactMap { j, node -> (to: Int, from: Int)? in
            index(of: node, in: old, oldIndex).map { (to: j, from: $0) }
        }
        let staying = Self.longestIncreasing(common.map(\.from))
        var moves: [Move] = []
        for (k, pair) in common.enumerated() where !staying.contains(k) {
            moves.append(Move(node: new[pair.to], from: pair.from, to: pair.to))
        }
        self.moves = moves
    }

    /// Indices (into `values`) of one longest strictly increasing subsequence (patience sorting).
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []            // tails[k]: index of the smallest tail of an increasing run of length k+1
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var result = Set<Int>()
        var k = tails.last ?? -1
        while k >= 0 {
            result.insert(k)
            k = previous[k]
        }
        return result
    }

    public static func == (a: HierarchyDiff, b: HierarchyDiff) -> Bool {
        a.removals == b.removals && a.insertions == b.insertions && a.moves == b.moves
    }

    public var description: String {
        "\(insertionCount) insertion(s), \(removalCount) removal(s), \(moves.count) move(s)"
    }
}
