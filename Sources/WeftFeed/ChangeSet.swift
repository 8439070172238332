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

/// Turns a change set and the data source's counts after it into the edits that take a feed's structure from
/// before the update to after it, or refuses with an error naming the section and item.
///
/// Work: O(S) for the S sections (each section's count is compared) plus O(k log n) for k changed items in a
/// feed of n (each check and each edit is a lookup or an edit of the structure's sequences); never a pass over
/// the items of a section the change does not touch.
struct UpdatePlanner {
    let old: FeedStructure
    let changes: ChangeSet
    let newCounts: [Int]

    /// The edits, and the items whose cells the change makes (ID and path after the change, in path order).
    struct Planned {
        var delta = StructureDelta()
        var newItems: [(ItemID, ItemPath)] = []
    }

    /// A change that passed every check: where each section comes from, and what happens to the items of each
    /// old section that a change touches.
    struct Checked {
        let sources: [SectionSource]
        let sectionPlans: [Int: SectionPlan]
        let changes: ChangeSet
        let newCounts: [Int]
    }

    /// Checks the change against `old`; throws an error naming the section and item.
    func check() throws(FeedError) -> Checked {
        let sectionSources = try planSections()
        try checkItemReferences(sectionSources)
        let grouped = ItemChanges(changes)
        var sectionPlans: [Int: SectionPlan] = [:]
        for (j, source) in sectionSources.enumerated() {
            guard case .old(let i) = source else { continue }
            if let plan = try planItems(oldSection: i, newSection: j, grouped) { sectionPlans[i] = plan }
        }
        return Checked(sources: sectionSources, sectionPlans: sectionPlans, changes: changes, newCounts: newCounts)
    }

    /// The item changes grouped by section, in their order: each section's planning reads its own.
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
        let oldCount = old.sectionCount
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

    /// What happens to the items of an old section that stays (as new section `newSection`).
    struct SectionPlan {
        var newSection: Int
        /// Old item indexes that leave the section (deleted or moved out), and those reloaded in place.
        var removed: [Int] = []
        var reloaded: [Int] = []
        /// New item indexes that items come to (inserted, or moved in with the ID they had).
        var arriving: [(item: Int, moved: ItemID?)] = []
    }

    /// Checks the item changes of old section `i`, which stays as new section `j`; nil when none touches it
    /// (its count is checked all the same). O(changes of the section).
    func planItems(oldSection i: Int, newSection j: Int, _ grouped: ItemChanges) throws(FeedError) -> SectionPlan? {
        let oldCount = old.count(inSection: i)
        let count = newCounts[j]
        let deletedPaths = grouped.deleted[i] ?? []
        let reloadedPaths = grouped.reloaded[i] ?? []
        let movedOut = grouped.movedFrom[i] ?? []
        let inserted = grouped.inserted[j] ?? []
        let movedIn = grouped.movedTo[j] ?? []
        if deletedPaths.isEmpty && reloadedPaths.isEmpty && movedOut.isEmpty && inserted.isEmpty && movedIn.isEmpty {
            guard oldCount == count else {
                throw FeedError(
                    "section \(j): the data source now has \(count) items, but the feed had \(oldCount) with 0 "
                        + "inserted, 0 deleted, 0 moved in and 0 moved out, so it should have \(oldCount)")
            }
            return nil
        }
        var fate: [Int: String] = [:]
        func claimOld(_ path: ItemPath, _ what: String) throws(FeedError) {
            guard path.item >= 0 && path.item < oldCount else {
                throw FeedError("\(what): \(path) does not exist (the feed has \(oldCount) items in section \(path.section))")
            }
            if let earlier = fate[path.item] { throw FeedError("\(path) is both \(earlier) and \(what)") }
            fate[path.item] = what
        }
        for path in deletedPaths { try claimOld(path, "deleteItems") }
        for path in reloadedPaths { try claimOld(path, "reloadItems") }
        for move in movedOut { try claimOld(move.from, "moveItem") }

        var claimed = Set<Int>()
        func claimNew(_ path: ItemPath, _ what: String) throws(FeedError) {
            guard path.item >= 0 && path.item < count else {
                throw FeedError("\(what): \(path) is beyond the \(count) items the data source now has in section \(j)")
            }
            guard claimed.insert(path.item).inserted else { throw FeedError("\(what): \(path) is the destination of two changes") }
        }
        var plan = SectionPlan(newSection: j)
        for path in inserted {
            try claimNew(path, "insertItems")
            plan.arriving.append((path.item, nil))
        }
        var movedInCount = 0
        for move in movedIn {
            // (A source outside the feed is reported by its own section's checks.)
            guard let id = old.id(at: move.from) else { continue }
            try claimNew(move.to, "moveItem")
            plan.arriving.append((move.to.item, id))
            movedInCount += 1
        }
        let deleted = deletedPaths.count
        let survivors = oldCount - deleted - movedOut.count
        let expected = survivors + inserted.count + movedInCount
        guard expected == count else {
            throw FeedError(
                "section \(j): the data source now has \(count) items, but the feed had \(oldCount) with \(inserted.count) "
                    + "inserted, \(deleted) deleted, \(movedInCount) moved in and \(movedOut.count) moved out, so it should have \(expected)")
        }
        plan.removed = deletedPaths.map(\.item) + movedOut.map(\.from.item)
        plan.reloaded = reloadedPaths.map(\.item)
        return plan
    }

    /// The edits of a checked change, then applied to `structure`: replacements (reloads) at the old positions;
    /// removals of items, then of sections, from the last; insertions of sections, then of items, from the
    /// first, at the new positions (so that what stays fills the rest in order). Consecutive insertions or
    /// removals make one run. The IDs the edits need are read from `structure` before it changes.
    ///
    /// `structure` is the one the change was checked against, held by nothing else (a second holder would make
    /// the first edit copy it whole). New items get IDs from `nextID` on.
    static func makeEdits(_ checked: Checked, applyingTo structure: inout FeedStructure, nextID: inout ItemID) -> Planned {
        let sources = checked.sources
        let sectionPlans = checked.sectionPlans
        let changes = checked.changes
        let newCounts = checked.newCounts
        var planned = Planned()
        func newID() -> ItemID {
            defer { nextID += 1 }
            return nextID
        }
        // Reloaded items take new IDs in place.
        var reloadedIDs = Set<ItemID>()
        var replacements: [Int: [Int: ItemID]] = [:]
        for (i, plan) in sectionPlans.sorted(by: { $0.key < $1.key }) {
            for item in plan.reloaded {
                let path = ItemPath(item: item, section: i)
                let id = newID()
                planned.delta.append(.replaceItem(path, id))
                reloadedIDs.insert(id)
                replacements[i, default: [:]][item] = id
            }
        }
        // Items leaving their section, from the last. (Which of them leave the feed is told by the removals
        // themselves, below: every removed item does but those that move.)
        let removals = sectionPlans.flatMap { i, plan in plan.removed.map { ItemPath(item: $0, section: i) } }.sorted(by: >)
        var moving = Set(sectionPlans.values.flatMap { $0.arriving.compactMap(\.moved) })
        for path in removals {
            planned.delta.append(.removeItems(path, count: 1))
        }
        // Sections leaving (deleted, reloaded, moved), from the last; a moved one's items are kept for its new place.
        let movedSections = Dictionary(changes.movedSections.map { ($0.from, $0.to) }, uniquingKeysWith: { a, _ in a })
        let leavingSections = (changes.deletedSections + changes.reloadedSections + changes.movedSections.map(\.from)).sorted(by: >)
        var movedIDs: [Int: [ItemID]] = [:]
        for i in leavingSections {
            let count = structure.count(inSection: i) - (sectionPlans[i]?.removed.count ?? 0)
            if count > 0 { planned.delta.append(.removeItems(ItemPath(item: 0, section: i), count: count)) }
            planned.delta.append(.removeSection(i))
            guard let to = movedSections[i] else { continue }
            // What is left of a moved section after its items' own changes, in order, goes to its new place.
            let removed = Set(sectionPlans[i]?.removed ?? [])
            let replaced = replacements[i] ?? [:]
            let all = structure.count(inSection: i)
            var ids: [ItemID] = []
            ids.reserveCapacity(count)
            if all > 0 {
                var item = 0
                structure.items.forEachSlot(from: structure.start(ofSection: i)) { slot in
                    defer { item += 1 }
                    guard item < all else { return false }
                    if !removed.contains(item) { ids.append(replaced[item] ?? structure.items.id(ofSlot: slot)) }
                    return true
                }
            }
            moving.formUnion(ids)
            movedIDs[to] = ids
        }
        // Sections arriving, from the first: new ones (inserted or reloaded) with new items, moved ones with theirs.
        for (j, source) in sources.enumerated() {
            let ids: [ItemID]
            switch source {
            case .fresh:
                ids = (0..<newCounts[j]).map { item in
                    let id = newID()
                    planned.newItems.append((id, ItemPath(item: item, section: j)))
                    return id
                }
            case .old:
                guard let moved = movedIDs[j] else { continue }
                ids = moved
            }
            planned.delta.append(.insertSection(j))
            if !ids.isEmpty { planned.delta.append(.insertItems(ids, ItemPath(item: 0, section: j))) }
        }
        // Items arriving in sections that stay, from the first.
        let arrivals = sectionPlans.values.flatMap { plan in
            plan.arriving.map { (path: ItemPath(item: $0.item, section: plan.newSection), moved: $0.moved) }
        }.sorted { $0.path < $1.path }
        // (Consecutive ones make one run.)
        var run: [ItemID] = []
        var runStart: ItemPath?
        func endRun() {
            if let runStart { planned.delta.append(.insertItems(run, runStart)) }
            run = []
            runStart = nil
        }
        for arrival in arrivals {
            let id: ItemID
            if let moved = arrival.moved {
                id = moved
            } else {
                id = newID()
                planned.newItems.append((id, arrival.path))
            }
            if let start = runStart, start.section == arrival.path.section, start.item + run.count == arrival.path.item {
                run.append(id)
            } else {
                endRun()
                runStart = arrival.path
                run = [id]
            }
        }
        endRun()
        // The plan's own copy takes the edits: what is removed and does not move leaves the feed (a reloaded
        // item's old ID among them), and a reloaded item's slot tells where it ends up.
        var reloadedSlots: [ItemID: ItemSequence.Slot] = [:]
        var leaving: [ItemID] = []
        structure.apply(planned.delta, removed: { id, _, _ in
            if !moving.contains(id) { leaving.append(id) }
        }, placed: { id, slot in
            if reloadedIDs.contains(id) { reloadedSlots[id] = slot }
            return 0
        })
        planned.delta.leaving = leaving
        for (id, slot) in reloadedSlots {
            planned.newItems.append((id, structure.path(ofFlat: structure.items.index(ofSlot: slot))))
        }
        planned.newItems.sort { $0.1 < $1.1 }
        return planned
    }
}
