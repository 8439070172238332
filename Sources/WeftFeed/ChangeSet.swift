/// The changes of one batch update (Texture's and UIKit's batch-update rules).
///
/// Deletions, reloads and the source of moves name positions before the update; insertions and the
/// destination of moves name positions after it. A reload replaces the item's cell and keeps its place.
public struct ChangeSet: Sendable {
    public internal(set) var insertedItems: [ItemPath] = []
    public internal(set) var deletedItems: [ItemPath] = []
    public internal(set) var reloadedItems: [ItemPath] = []
    public internal(set) var movedItems: [(from: ItemPath, to: ItemPath)] = []
    public internal(set) var insertedSections: [Int] = []
    public internal(set) var deletedSections: [Int] = []
    public internal(set) var reloadedSections: [Int] = []
    public internal(set) var movedSections: [(from: Int, to: Int)] = []

    public init() {}

    public mutating func insertItems(at itemPaths: [ItemPath]) { insertedItems += itemPaths }
    public mutating func deleteItems(at itemPaths: [ItemPath]) { deletedItems += itemPaths }
    public mutating func reloadItems(at itemPaths: [ItemPath]) { reloadedItems += itemPaths }
    public mutating func moveItem(at from: ItemPath, to: ItemPath) { movedItems.append((from, to)) }
    public mutating func insertSections(_ sections: [Int]) { insertedSections += sections }
    public mutating func deleteSections(_ sections: [Int]) { deletedSections += sections }
    public mutating func reloadSections(_ sections: [Int]) { reloadedSections += sections }
    public mutating func moveSection(_ from: Int, toSection to: Int) { movedSections.append((from, to)) }

    public var isEmpty: Bool {
        insertedItems.isEmpty && deletedItems.isEmpty && reloadedItems.isEmpty && movedItems.isEmpty
            && insertedSections.isEmpty && deletedSections.isEmpty && reloadedSections.isEmpty && movedSections.isEmpty
    }
}

/// An item of a feed's structure: an identity that lives as long as the item.
typealias ItemID = UInt64

/// A slot of the structure after an update: an item kept from before, or a new one to make.
enum Slot: Equatable {
    case kept(ItemID)
    case new(ItemPath)
}

/// Turns the structure before an update, a change set and the data source's counts after it into the
/// structure after it, or refuses with an error naming the section and item.
struct UpdatePlanner {
    let old: [[ItemID]]
    let changes: ChangeSet
    let newCounts: [Int]

    func plan() throws(FeedError) -> [[Slot]] {
        let sectionSources = try planSections()
        var result: [[Slot]] = []
        result.reserveCapacity(newCounts.count)
        try checkItemReferences(sectionSources)
        let grouped = ItemChanges(changes)
        for (j, source) in sectionSources.enumerated() {
            switch source {
            case .fresh:
                result.append((0..<newCounts[j]).map { .new(ItemPath(item: $0, section: j)) })
            case .old(let i):
                result.append(try planItems(oldSection: i, newSection: j, grouped))
            }
        }
        return result
    }

    /// The item changes grouped by section, in their order: each section's planning reads its own. (Filtered
    /// out of every change for each section, planning took sections x changes: 2.9 s for deleting one item in
    /// each of 8,000 sections, under the feed's plan lock.)
    struct ItemChanges {
        var deleted: [Int: [ItemPath]] = [:]
        var reloaded: [Int: [ItemPath]] = [:]
        var movedFrom: [Int: [(from: ItemPath, to: ItemPath)]] = [:]
        var inserted: [Int: [ItemPath]] = [:]
        var movedTo: [Int: [(from: ItemPath, to: ItemPath)]] = [:]

        init(_ changes: ChangeSet) {
            for path in changes.deletedItems { deleted[path.section, default: []].append(path) }
            for path in changes.reloadedItems { reloaded[path.section, default: []].append(path) }
            for path in changes.insertedItems { inserted[path.section, default: []].append(path) }
            for move in changes.movedItems {
                movedFrom[move.from.section, default: []].append(move)
                movedTo[move.to.section, default: []].append(move)
            }
        }
    }

    enum SectionSource: Equatable {
        case fresh
        case old(Int)
    }

    /// Where each section after the update comes from.
    func planSections() throws(FeedError) -> [SectionSource] {
        let oldCount = old.count
        let newCount = newCounts.count
        var usedOld = [String?](repeating: nil, count: oldCount)
        func claimOld(_ i: Int, _ what: String) throws(FeedError) {
            guard i >= 0 && i < oldCount else {
                throw FeedError("\(what): section \(i) does not exist (the feed has \(oldCount) sections)")
            }
            if let earlier = usedOld[i] { throw FeedError("section \(i) is both \(earlier) and \(what)") }
            usedOld[i] = what
        }
        var slots = [SectionSource?](repeating: nil, count: newCount)
        func claimNew(_ j: Int, _ source: SectionSource, _ what: String) throws(FeedError) {
            guard j >= 0 && j < newCount else {
                throw FeedError("\(what): section \(j) is beyond the \(newCount) sections the data source now has")
            }
            if slots[j] != nil { throw FeedError("\(what): section \(j) is the destination of two changes") }
            slots[j] = source
        }
        for i in changes.deletedSections { try claimOld(i, "deleteSections") }
        for i in changes.reloadedSections { try claimOld(i, "reloadSections") }
        for (from, _) in changes.movedSections { try claimOld(from, "moveSection") }
        for j in changes.insertedSections { try claimNew(j, .fresh, "insertSections") }
        for (from, to) in changes.movedSections { try claimNew(to, .old(from), "moveSection") }
        // Sections neither deleted nor moved keep their order in the remaining places; reloaded ones start over.
        let survivors = (0..<oldCount).filter { usedOld[$0] == nil || usedOld[$0] == "reloadSections" }
        let expected = survivors.count + changes.insertedSections.count + changes.movedSections.count
        guard expected == newCount else {
            throw FeedError(
                "sections: the data source now has \(newCount), but the feed had \(oldCount) with \(changes.insertedSections.count) "
                    + "inserted and \(changes.deletedSections.count) deleted, so it should have \(expected)")
        }
        let reloaded = Set(changes.reloadedSections)
        return Self.fill(slots, with: survivors) { _, i in reloaded.contains(i) ? .fresh : .old(i) }
    }

    /// `slots` with each empty one taken by the next of `survivors`, in order (the counts were checked to
    /// match): what stays keeps its relative order around what was inserted or moved in.
    static func fill<T>(_ slots: [T?], with survivors: [Int], _ make: (_ slot: Int, _ survivor: Int) -> T) -> [T] {
        var next = 0
        return slots.enumerated().map { index, slot in
            if let slot { return slot }
            defer { next += 1 }
            return make(index, survivors[next])
        }
    }

    /// Item changes must lie in sections that keep their items.
    func checkItemReferences(_ sources: [SectionSource]) throws(FeedError) {
        let keptOld = Set(sources.compactMap { if case .old(let i) = $0 { return i } else { return nil } })
        let keptNew = Set(sources.indices.filter { sources[$0] != .fresh })
        for path in changes.deletedItems + changes.reloadedItems + changes.movedItems.map(\.from) where !keptOld.contains(path.section) {
            throw FeedError("\(path): its section is deleted, reloaded or does not exist; item changes need a section that stays")
        }
        for path in changes.insertedItems + changes.movedItems.map(\.to) where !keptNew.contains(path.section) {
            throw FeedError("\(path): its section is inserted, reloaded or does not exist; item changes need a section that stays")
        }
    }

    /// The slots of new section `j`, which keeps old section `i`'s items.
    func planItems(oldSection i: Int, newSection j: Int, _ grouped: ItemChanges) throws(FeedError) -> [Slot] {
        let oldItems = old[i]
        var fate = [String?](repeating: nil, count: oldItems.count)
        func claimOld(_ path: ItemPath, _ what: String) throws(FeedError) {
            guard path.item >= 0 && path.item < oldItems.count else {
                throw FeedError("\(what): \(path) does not exist (the feed has \(oldItems.count) items in section \(path.section))")
            }
            if let earlier = fate[path.item] { throw FeedError("\(path) is both \(earlier) and \(what)") }
            fate[path.item] = what
        }
        for path in grouped.deleted[i] ?? [] { try claimOld(path, "deleteItems") }
        for path in grouped.reloaded[i] ?? [] { try claimOld(path, "reloadItems") }
        for move in grouped.movedFrom[i] ?? [] { try claimOld(move.from, "moveItem") }

        let count = newCounts[j]
        var slots = [Slot?](repeating: nil, count: count)
        func claimNew(_ path: ItemPath, _ slot: Slot, _ what: String) throws(FeedError) {
            guard path.item >= 0 && path.item < count else {
                throw FeedError("\(what): \(path) is beyond the \(count) items the data source now has in section \(j)")
            }
            if slots[path.item] != nil { throw FeedError("\(what): \(path) is the destination of two changes") }
            slots[path.item] = slot
        }
        let inserted = grouped.inserted[j] ?? []
        for path in inserted { try claimNew(path, .new(path), "insertItems") }
        let movedIn = grouped.movedTo[j] ?? []
        for move in movedIn {
            guard let sourceIndex = sectionIndex(move.from.section), move.from.item < old[sourceIndex].count else { continue }
            try claimNew(move.to, .kept(old[sourceIndex][move.from.item]), "moveItem")
        }
        let survivors = oldItems.indices.filter { fate[$0] == nil || fate[$0] == "reloadItems" }
        let deleted = fate.filter { $0 == "deleteItems" }.count
        let movedOut = fate.filter { $0 == "moveItem" }.count
        let expected = survivors.count + inserted.count + movedIn.count
        guard expected == count else {
            throw FeedError(
                "section \(j): the data source now has \(count) items, but the feed had \(oldItems.count) with \(inserted.count) "
                    + "inserted, \(deleted) deleted, \(movedIn.count) moved in and \(movedOut) moved out, so it should have \(expected)")
        }
        return Self.fill(slots, with: survivors) { k, index in
            fate[index] == "reloadItems" ? .new(ItemPath(item: k, section: j)) : .kept(oldItems[index])
        }
    }

    private func sectionIndex(_ i: Int) -> Int? {
        i >= 0 && i < old.count ? i : nil
    }
}
