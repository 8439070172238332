/// A sequence of items, each an ID with a weight (a cell's height, or a section's item count), that inserts,
/// removes, finds by position and sums weights in O(log n): an implicit treap whose nodes live in one array.
///
/// A node keeps its slot in the array for as long as its item is in the sequence, whatever is inserted or removed
/// around it, so a slot is a handle: ``index(ofSlot:)`` and ``offset(ofSlot:)`` climb from it to the root.
/// Slots of removed items are reused. A node's priority is a hash of its slot (stored nowhere), so the shape, and
/// the cost, is the same on every run, and no order of positions a caller picks lines the nodes up.
struct ItemSequence {
    /// A slot in ``nodes``; -1 is none.
    typealias Slot = Int32

    struct Node {
        var left: Slot = -1
        var right: Slot = -1
        var parent: Slot = -1
        /// Items in the subtree.
        var size: Int32 = 1
        var id: UInt64
        var weight: Double
        /// Weights of the subtree.
        var sum: Double
    }

    /// The nodes, by slot (in pages: growing never copies them).
    private(set) var nodes = PagedArray<Node>()
    private var root: Slot = -1
    private var free: [Slot] = []

    init() {}

    /// How many items.
    var count: Int { root < 0 ? 0 : Int(nodes[Int(root)].size) }

    /// The weights of all items together.
    var totalWeight: Double { root < 0 ? 0 : nodes[Int(root)].sum }

    /// The most items a sequence holds (slots are 32-bit).
    static let capacity = Int(Int32.max) - 1

    // MARK: Reading

    /// The slot of the item at `index` (0 ..< count).
    func slot(at index: Int) -> Slot {
        precondition(index >= 0 && index < count, "ItemSequence: index \(index) out of 0..<\(count)")
        var node = root
        var index = Int32(index)
        while true {
            let left = nodes[Int(node)].left
            let leftSize = size(left)
            if index < leftSize {
                node = left
            } else if index == leftSize {
                return node
            } else {
                index -= leftSize + 1
                node = nodes[Int(node)].right
            }
        }
    }

    func id(at index: Int) -> UInt64 { nodes[Int(slot(at: index))].id }
    func weight(at index: Int) -> Double { nodes[Int(slot(at: index))].weight }
    func id(ofSlot slot: Slot) -> UInt64 { nodes[Int(slot)].id }
    func weight(ofSlot slot: Slot) -> Double { nodes[Int(slot)].weight }

    /// The position of the item in `slot`.
    func index(ofSlot slot: Slot) -> Int {
        var node = slot
        var index = Int(size(nodes[Int(node)].left))
        while true {
            let parent = nodes[Int(node)].parent
            if parent < 0 { return index }
            if nodes[Int(parent)].right == node { index += Int(size(nodes[Int(parent)].left)) + 1 }
            node = parent
        }
    }

    /// The weights of the items before the one in `slot` (a cell's top offset).
    func offset(ofSlot slot: Slot) -> Double {
        var node = slot
        var offset = sum(nodes[Int(node)].left)
        while true {
            let parent = nodes[Int(node)].parent
            if parent < 0 { return offset }
            if nodes[Int(parent)].right == node { offset += sum(nodes[Int(parent)].left) + nodes[Int(parent)].weight }
            node = parent
        }
    }

    /// The weights of the first `index` items.
    func offset(before index: Int) -> Double {
        var node = root
        var index = Int32(index)
        var offset = 0.0
        while node >= 0 && index > 0 {
            let left = nodes[Int(node)].left
            let leftSize = size(left)
            if index <= leftSize {
                node = left
            } else {
                offset += sum(left) + nodes[Int(node)].weight
                index -= leftSize + 1
                node = nodes[Int(node)].right
            }
        }
        return offset
    }

    /// The position of the first item whose end (its offset plus its weight) is after `y`; `count` when none
    /// is. With cell heights as weights: the first cell that reaches below `y`. With section counts: the
    /// section holding flat index `y`.
    func firstIndex(endingAfter y: Double) -> Int {
        var node = root
        var y = y
        var index = 0
        while node >= 0 {
            let left = nodes[Int(node)].left
            let leftSum = sum(left)
            if y < leftSum {
                node = left
            } else if y < leftSum + nodes[Int(node)].weight {
                return index + Int(size(left))
            } else {
                y -= leftSum + nodes[Int(node)].weight
                index += Int(size(left)) + 1
                node = nodes[Int(node)].right
            }
        }
        return index
    }

    /// The slot after `slot` in order, or -1.
    func successor(of slot: Slot) -> Slot {
        var node = nodes[Int(slot)].right
        if node >= 0 {
            while nodes[Int(node)].left >= 0 { node = nodes[Int(node)].left }
            return node
        }
        node = slot
        while true {
            let parent = nodes[Int(node)].parent
            if parent < 0 || nodes[Int(parent)].left == node { return parent }
            node = parent
        }
    }

    /// Calls `body` with the slots from position `start` on, in order, while it returns true.
    func forEachSlot(from start: Int, _ body: (Slot) throws -> Bool) rethrows {
        guard start < count else { return }
        var node = slot(at: max(0, start))
        while node >= 0 {
            guard try body(node) else { return }
            node = successor(of: node)
        }
    }

    /// Every ID, in order.
    var ids: [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(count)
        forEachSlot(from: 0) { slot in
            result.append(nodes[Int(slot)].id)
            return true
        }
        return result
    }

    // MARK: Changing

    /// Inserts an item at `index` (0 ... count); returns its slot.
    @discardableResult
    mutating func insert(_ id: UInt64, weight: Double = 0, at index: Int) -> Slot {
        precondition(index >= 0 && index <= count, "ItemSequence: insertion at \(index) out of 0...\(count)")
        let new = makeNode(id, weight)
        let (left, right) = split(root, Int32(index))
        root = merge(merge(left, new), right)
        nodes[Int(root)].parent = -1
        return new
    }

    /// Inserts `ids` in order at `index` (0 ... count), in O(k log k + log n): the run is built apart (where it
    /// stays in cache) and spliced in with one split and two merges. `weight` gives each new item's weight from
    /// its ID and slot.
    mutating func insert(
        contentsOf ids: some Collection<UInt64>, at index: Int, weight: (UInt64, Slot) -> Double
    ) {
        precondition(index >= 0 && index <= count, "ItemSequence: insertion at \(index) out of 0...\(count)")
        guard !ids.isEmpty else { return }
        var run: Slot = -1
        for id in ids {
            let node = makeNode(id, 0)
            let w = weight(id, node)
            nodes[Int(node)].weight = w
            nodes[Int(node)].sum = w
            run = merge(run, node)
            nodes[Int(run)].parent = -1
        }
        let (left, right) = split(root, Int32(index))
        root = merge(merge(left, run), right)
        nodes[Int(root)].parent = -1
    }

    /// Removes `count` items from `index` on, in O(k + log n); `removed` gets each one's ID, weight and former
    /// slot, in order.
    mutating func remove(count: Int, at index: Int, _ removed: (UInt64, Double, Slot) -> Void) {
        precondition(count >= 0 && index >= 0 && index + count <= self.count,
                     "ItemSequence: removal of \(count) at \(index) out of 0..<\(self.count)")
        guard count > 0 else { return }
        let (left, rest) = split(root, Int32(index))
        let (middle, right) = split(rest, Int32(count))
        // The run's nodes in order (an explicit stack: no recursion over a run of any length).
        var stack: [Slot] = []
        var node = middle
        while node >= 0 || !stack.isEmpty {
            while node >= 0 {
                stack.append(node)
                node = nodes[Int(node)].left
            }
            let next = stack.removeLast()
            removed(nodes[Int(next)].id, nodes[Int(next)].weight, next)
            node = nodes[Int(next)].right
            free.append(next)
        }
        root = merge(left, right)
        if root >= 0 { nodes[Int(root)].parent = -1 }
    }

    /// Appends items in order (a new sequence's contents: each append walks the right spine only).
    mutating func append(contentsOf items: some Sequence<(UInt64, Double)>) {
        for (id, weight) in items {
            root = merge(root, makeNode(id, weight))
            nodes[Int(root)].parent = -1
        }
    }

    /// Removes the item at `index`; returns its ID, its weight and the slot it had (free from now on).
    @discardableResult
    mutating func remove(at index: Int) -> (id: UInt64, weight: Double, slot: Slot) {
        precondition(index >= 0 && index < count, "ItemSequence: removal at \(index) out of 0..<\(count)")
        let (left, rest) = split(root, Int32(index))
        let (middle, right) = split(rest, 1)
        let removed = nodes[Int(middle)]
        free.append(middle)
        root = merge(left, right)
        if root >= 0 { nodes[Int(root)].parent = -1 }
        return (removed.id, removed.weight, middle)
    }

    /// Changes the ID of the item in `slot`.
    mutating func setID(_ id: UInt64, ofSlot slot: Slot) {
        nodes[Int(slot)].id = id
    }

    /// Changes the weight of the item in `slot`; the sums above it follow.
    mutating func setWeight(_ weight: Double, ofSlot slot: Slot) {
        nodes[Int(slot)].weight = weight
        var node = slot
        while node >= 0 {
            update(node)
            node = nodes[Int(node)].parent
        }
    }

    /// One more than the highest slot in use so far (a table indexed by slot needs this many entries).
    var slotCount: Int { nodes.count }

    /// The bytes its storage holds (capacity included).
    var storageBytes: Int {
        nodes.storageBytes + free.capacity * MemoryLayout<Slot>.stride
    }

    /// Empties the sequence.
    mutating func removeAll() {
        nodes.removeAll()
        free.removeAll()
        root = -1
    }

    // MARK: The treap

    private func size(_ node: Slot) -> Int32 { node < 0 ? 0 : nodes[Int(node)].size }
    private func sum(_ node: Slot) -> Double { node < 0 ? 0 : nodes[Int(node)].sum }

    /// The treap priority of `slot`: SplitMix64's finalizer of it.
    private static func priority(_ slot: Slot) -> UInt64 {
        var z = UInt64(UInt32(bitPattern: slot)) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func makeNode(_ id: UInt64, _ weight: Double) -> Slot {
        let node = Node(id: id, weight: weight, sum: weight)
        if let slot = free.popLast() {
            nodes[Int(slot)] = node
            return slot
        }
        precondition(nodes.count < Self.capacity, "ItemSequence: more than \(Self.capacity) items")
        nodes.append(node)
        return Slot(nodes.count - 1)
    }

    /// Recomputes `node`'s size and sum from its children, and points them at it.
    private mutating func update(_ node: Slot) {
        let left = nodes[Int(node)].left
        let right = nodes[Int(node)].right
        var size: Int32 = 1
        var total = 0.0
        if left >= 0 {
            size += nodes[Int(left)].size
            total += nodes[Int(left)].sum
            nodes[Int(left)].parent = node
        }
        total += nodes[Int(node)].weight
        if right >= 0 {
            size += nodes[Int(right)].size
            total += nodes[Int(right)].sum
            nodes[Int(right)].parent = node
        }
        nodes[Int(node)].size = size
        nodes[Int(node)].sum = total
    }

    /// Splits `node`'s subtree into its first `count` items and the rest (both roots' parents unset by the
    /// caller that uses them as roots).
    private mutating func split(_ node: Slot, _ count: Int32) -> (Slot, Slot) {
        guard node >= 0 else { return (-1, -1) }
        let left = nodes[Int(node)].left
        let leftSize = size(left)
        if count <= leftSize {
            let (a, b) = split(left, count)
            nodes[Int(node)].left = b
            update(node)
            if a >= 0 { nodes[Int(a)].parent = -1 }
            return (a, node)
        } else {
            let (a, b) = split(nodes[Int(node)].right, count - leftSize - 1)
            nodes[Int(node)].right = a
            update(node)
            if b >= 0 { nodes[Int(b)].parent = -1 }
            return (node, b)
        }
    }

    /// Joins two subtrees, every item of `a` before every item of `b`.
    private mutating func merge(_ a: Slot, _ b: Slot) -> Slot {
        if a < 0 { return b }
        if b < 0 { return a }
        if Self.priority(a) > Self.priority(b) {
            nodes[Int(a)].right = merge(nodes[Int(a)].right, b)
            update(a)
            return a
        } else {
            nodes[Int(b)].left = merge(a, nodes[Int(b)].left)
            update(b)
            return b
        }
    }
}
