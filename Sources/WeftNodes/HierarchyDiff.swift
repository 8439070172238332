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

    public let removals: [Removal]
    public let insertions: [Insertion]
    public let moves: [Move]

    public var isEmpty: Bool { removals.isEmpty && insertions.isEmpty && moves.isEmpty }

    /// The diff from `old` to `new`. Each list holds each node at most once.
    public init(from old: [Node], to new: [Node]) {
        // The common cases allocate nothing beyond their result.
        if old.count == new.count && zip(old, new).allSatisfy({ $0 === $1 }) {
            (removals, insertions, moves) = ([], [], [])
            return
        }
        if old.isEmpty {
            (removals, insertions, moves) = ([], new.enumerated().map { Insertion(node: $1, index: $0) }, [])
            return
        }
        if new.isEmpty {
            (removals, insertions, moves) = (old.enumerated().map { Removal(node: $1, index: $0) }, [], [])
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
        func index(of node: Node, in list: [Node], _ map: [ObjectIdentifier: Int]) -> Int? {
            small ? list.firstIndex { $0 === node } : map[ObjectIdentifier(node)]
        }
        removals = old.enumerated().compactMap { i, node in
            index(of: node, in: new, newIndex) == nil ? Removal(node: node, index: i) : nil
        }
        insertions = new.enumerated().compactMap { i, node in
            index(of: node, in: old, oldIndex) == nil ? Insertion(node: node, index: i) : nil
        }
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

    public var description: String {
        "\(insertions.count) insertion(s), \(removals.count) removal(s), \(moves.count) move(s)"
    }
}
