/// A feed's sections and items: every item in one flat ``ItemSequence`` (in section order) and the sections'
/// item counts in another, so that an item's flat index, the item at a path and the section of a flat index are
/// found in O(log n), and a change of k items costs O(k log n).
///
/// The items' weights are whatever the owner keeps there: the committed state keeps the cells' heights (so the
/// sum before an item is its top offset); the plan and the editing queue keep zeros.
struct FeedStructure {
    var items = ItemSequence()
    /// One item per section; its weight is the section's item count.
    var sections = ItemSequence()

    var sectionCount: Int { sections.count }
    var itemCount: Int { items.count }

    func count(inSection section: Int) -> Int {
        section >= 0 && section < sections.count ? Int(sections.weight(at: section)) : 0
    }

    /// The flat index of the first item of `section` (0 ... sectionCount).
    func start(ofSection section: Int) -> Int {
        Int(sections.offset(before: section))
    }

    /// The flat index of `path`, if the path exists.
    func flatIndex(of path: ItemPath) -> Int? {
        guard path.section >= 0 && path.section < sections.count, path.item >= 0 && path.item < count(inSection: path.section)
        else { return nil }
        return start(ofSection: path.section) + path.item
    }

    func id(at path: ItemPath) -> ItemID? {
        flatIndex(of: path).map { items.id(at: $0) }
    }

    /// The path of flat index `flat` (0 ..< itemCount).
    func path(ofFlat flat: Int) -> ItemPath {
        let section = sections.firstIndex(endingAfter: Double(flat))
        return ItemPath(item: flat - start(ofSection: section), section: section)
    }

    /// A structure of `counts.count` sections holding `ids` in order (`counts` adds up to `ids.count`).
    init(counts: [Int] = [], ids: [ItemID] = []) {
        sections.append(contentsOf: counts.lazy.map { (0, Double($0)) })
        items.append(contentsOf: ids.lazy.map { ($0, 0) })
    }

    /// Every section's values, in order: `value` of each item's slot, nil ones left out (for tests, tools and
    /// whole-feed work).
    func bySection<T>(_ value: (ItemSequence.Slot) -> T?) -> [[T]] {
        var result: [[T]] = []
        result.reserveCapacity(sectionCount)
        var slot = itemCount > 0 ? items.slot(at: 0) : -1
        for section in 0..<sectionCount {
            var values: [T] = []
            let count = count(inSection: section)
            values.reserveCapacity(count)
            for _ in 0..<count {
                if let value = value(slot) { values.append(value) }
                slot = items.successor(of: slot)
            }
            result.append(values)
        }
        return result
    }

    /// Every section's IDs.
    var sectionsOfIDs: [[ItemID]] { bySection { items.id(ofSlot: $0) } }

    /// The bytes its storage holds.
    var storageBytes: Int { items.storageBytes + sections.storageBytes }

    // MARK: Edits

    /// Inserts `ids` in order from `path` on (its section exists; its item is at most the section's count).
    /// `weight` gives each one's weight from its ID and slot.
    mutating func insertItems(
        _ ids: [ItemID], at path: ItemPath, weight: (ItemID, ItemSequence.Slot) -> Double = { _, _ in 0 }
    ) {
        let flat = start(ofSection: path.section) + path.item
        adjustCount(of: path.section, by: ids.count)
        items.insert(contentsOf: ids, at: flat, weight: weight)
    }

    /// Removes `count` items from `path` on (all in its section); `removed` gets each one's ID, weight and slot.
    mutating func removeItems(
        count: Int, at path: ItemPath, _ removed: (ItemID, Double, ItemSequence.Slot) -> Void = { _, _, _ in }
    ) {
        let flat = start(ofSection: path.section) + path.item
        items.remove(count: count, at: flat, removed)
        adjustCount(of: path.section, by: -count)
    }

    /// Removes the empty section `section`.
    mutating func removeEmptySection(_ section: Int) {
        sections.remove(at: section)
    }

    /// Inserts an empty section at `section`.
    mutating func insertEmptySection(_ section: Int) {
        sections.insert(0, weight: 0, at: section)
    }

    private mutating func adjustCount(of section: Int, by delta: Int) {
        let slot = sections.slot(at: section)
        sections.setWeight(sections.weight(ofSlot: slot) + Double(delta), ofSlot: slot)
    }

    /// Applies `delta`'s edits in order. `removed` gets each removed item's ID, weight and former slot (a slot
    /// freed here may be reused by a later edit), and the old ID of an item given a new one (a reload: its slot
    /// stays); `placed` gets the ID and slot of each item inserted or given a new ID and returns its weight.
    mutating func apply(
        _ delta: StructureDelta, removed: (ItemID, Double, ItemSequence.Slot) -> Void = { _, _, _ in },
        placed: (ItemID, ItemSequence.Slot) -> Double = { _, _ in 0 }
    ) {
        for edit in delta.edits {
            switch edit {
            case .removeItems(let path, let count):
                removeItems(count: count, at: path, removed)
            case .insertItems(let ids, let path):
                insertItems(ids, at: path, weight: placed)
            case .replaceItem(let path, let id):
                let slot = items.slot(at: start(ofSection: path.section) + path.item)
                removed(items.id(ofSlot: slot), items.weight(ofSlot: slot), slot)
                items.setID(id, ofSlot: slot)
                items.setWeight(placed(id, slot), ofSlot: slot)
            case .removeSection(let section):
                removeEmptySection(section)
            case .insertSection(let section):
                insertEmptySection(section)
            case .reset(let counts, let ids):
                self = FeedStructure(counts: counts, ids: ids)
                var slot = ids.isEmpty ? -1 : items.slot(at: 0)
                while slot >= 0 {
                    let weight = placed(items.id(ofSlot: slot), slot)
                    if weight != 0 { items.setWeight(weight, ofSlot: slot) }
                    slot = items.successor(of: slot)
                }
            }
        }
    }
}

/// A change to a feed's structure as edits applied in order, each at the positions of the structure as the
/// edits before it left it: what the plan decided, replayed by the editing queue and the apply queue on their
/// own copies in O(k log n).
struct StructureDelta: Sendable {
    enum Edit: Sendable {
        /// `count` items from the path on, in its section.
        case removeItems(ItemPath, count: Int)
        /// Items in order from the path on.
        case insertItems([ItemID], ItemPath)
        case replaceItem(ItemPath, ItemID)
        case removeSection(Int)
        case insertSection(Int)
        /// Everything replaced: sections of these counts holding these IDs (a reload of all data).
        case reset(counts: [Int], ids: [ItemID])
    }

    private(set) var edits: [Edit] = []
    /// Items that leave the feed (their cells go).
    var leaving: [ItemID] = []

    init(edits: [Edit] = []) {
        self.edits = edits
    }

    /// Adds an edit; a removal that continues the previous one's run joins it. (Insertions come in runs already:
    /// joining them here would copy the run's IDs at each step.)
    mutating func append(_ edit: Edit) {
        switch (edits.last, edit) {
        case (.removeItems(let start, let count)?, .removeItems(let path, let more))
            where path.section == start.section && path.item + more == start.item:
            // Removals run from the last: this one ends where the previous one starts.
            edits[edits.count - 1] = .removeItems(path, count: count + more)
        default:
            edits.append(edit)
        }
    }

    /// The edits, with a run or a reset counting each of its items.
    var size: Int {
        edits.reduce(0) { total, edit in
            switch edit {
            case .reset(_, let ids), .insertItems(let ids, _): return total + max(1, ids.count)
            case .removeItems(_, let count): return total + max(1, count)
            default: return total + 1
            }
        }
    }
}
