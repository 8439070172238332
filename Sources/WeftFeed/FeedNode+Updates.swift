import Dispatch
import WeftLayout
import WeftNodes
import WeftSync

/// What a committed change did.
public struct BatchUpdateSummary: Sendable, Equatable {
    public var inserted = 0
    public var deleted = 0
    public var reloaded = 0
    public var cellsLaidOut = 0
    /// Time the apply-queue commit took, in seconds: the one turn in which the feed's structure changed.
    public var commitSeconds = 0.0
    /// Time the new cells' hierarchies took on the apply queue before the commit, in seconds (in turns of at
    /// most about ``FeedNode/commitTurnBudget``, where nothing shows those cells yet).
    public var preparationSeconds = 0.0
    /// Wall time the editing queue spent making and laying out the change's cells, in seconds (in parallel on
    /// every core, before the commit was queued).
    public var cellSeconds = 0.0
    /// Apply-queue turns the change took, the commit's included.
    public var turns = 1
    /// Why the change was refused after it was checked, or nil when it was committed. A refused change
    /// changes nothing (its counts are 0), and neither does any change planned after it before it was refused
    /// (see ``FeedNode/performBatchUpdates(_:completion:)``).
    public var error: FeedError?
}

/// A change checked against the plan: its edits of the structure, the items whose cells it makes, and the
/// width cells are laid out for.
struct PlannedChange: Sendable {
    let delta: StructureDelta
    let newItems: [(ItemID, ItemPath)]
    let width: Double
}

/// A cell to make: its item, its place after the change, and its block.
struct NewCell {
    let id: ItemID
    let path: ItemPath
    let block: CellNodeBlock
    let range: SizeRange?
}

extension FeedNode {
    /// The data source's item count of each section, refused when a count is negative (each reached a range
    /// that trapped: "Range requires lowerBound <= upperBound").
    private func counts(of dataSource: any FeedDataSource) throws(FeedError) -> [Int] {
        let limit = itemLimit
        let sections = dataSource.numberOfSections(in: self)
        guard sections >= 0 else { throw FeedError("the data source reports \(sections) sections; expected 0 or more") }
        guard sections <= limit else {
            throw FeedError("the data source reports \(sections) sections; the feed takes at most \(limit) (its itemLimit)")
        }
        var counts: [Int] = []
        counts.reserveCapacity(sections)
        var total = 0
        for section in 0..<sections {
            let count = dataSource.feed(self, numberOfItemsInSection: section)
            guard count >= 0 else {
                throw FeedError("section \(section): the data source reports \(count) items; expected 0 or more")
            }
            // (Compared before adding: `total + count` overflows for a count near Int.max.)
            guard count <= limit - total else {
                throw FeedError(
                    "section \(section): the data source reports \(count) items, \(total) before it; the feed takes at most \(limit) in all (its itemLimit)")
            }
            total += count
            counts.append(count)
        }
        return counts
    }

    /// Replaces everything with what the data source holds now. MAY be called from any thread.
    ///
    /// The data source is asked for its counts and cell blocks on the calling thread, with no lock held (so it
    /// may call back into the feed); the change takes its place in the order of the feed's changes when its
    /// counts are planned. Throws (and `completion` is never called) when the feed has no data source: the
    /// feed holds it weakly, so it may be gone. A cell block that breaks a rule is refused as in
    /// ``performBatchUpdates(_:completion:)``.
    public func reloadData(completion: (@Sendable (BatchUpdateSummary) -> Void)? = nil) throws(FeedError) {
        guard let dataSource else { throw FeedError("the feed has no data source (it holds its data source weakly)") }
        let counts = try counts(of: dataSource)
        let (planned, ticket) = plan.withLock { plan -> (PlannedChange, UInt64) in
            var newItems: [(ItemID, ItemPath)] = []
            var ids: [ItemID] = []
            for (section, count) in counts.enumerated() {
                for item in 0..<count {
                    let id = plan.nextID
                    plan.nextID += 1
                    ids.append(id)
                    newItems.append((id, ItemPath(item: item, section: section)))
                }
            }
            var delta = StructureDelta(edits: [.reset(counts: counts, ids: ids)])
            delta.leaving = plan.structure.items.ids
            plan.structure = FeedStructure(counts: counts, ids: ids)
            return (PlannedChange(delta: delta, newItems: newItems, width: plan.width), plan.takeTicket())
        }
        submit(ticket, planned, dataSource: dataSource, relayoutAll: false, reloaded: 0) { summary in
            completion?(summary)
        }
    }

    /// Applies a batch of changes (Texture's `performBatchUpdates`). Update the data source first, then call this
    /// with the matching changes. MAY be called from any thread.
    ///
    /// The whole change set is checked against the data source before anything changes: an invalid index, a
    /// position named twice or a count that does not add up throws an error naming the section and item, and the
    /// feed stays as it was. Otherwise new and reloaded cells are made and laid out in the background and the
    /// change is committed in one apply-queue turn (deletions before insertions); `completion` runs after it,
    /// on the apply queue.
    ///
    /// Changes are committed in the order they were checked, whatever threads they come from. The data source
    /// is called on the calling thread with no lock of the feed's held (it may call back into the feed).
    ///
    /// A cell node belongs to one item (Texture's and UIKit's rule): a cell block MUST return a cell that is
    /// in no other place of the feed. Cell blocks run in the background after this call returned, so a block
    /// that returns the cell of another item of the change, or a cell the feed holds for another item, is
    /// refused there: `completion` gets the error in ``BatchUpdateSummary/error``, naming both items, and the
    /// feed stays as it was. Changes planned on top of the refused one before it was refused are refused with
    /// it (a width change among them still lays the cells out again); the next change is checked against the
    /// feed as it was. (A shared cell had one place in the feed's index of cells: only that place followed
    /// its size, and deleting either item took the other's cell out of the feed.)
    public func performBatchUpdates(
        _ build: (inout ChangeSet) -> Void, completion: (@Sendable (BatchUpdateSummary) -> Void)? = nil
    ) throws(FeedError) {
        var changes = ChangeSet()
        build(&changes)
        guard let dataSource else { throw FeedError("the feed has no data source") }
        let counts = try counts(of: dataSource)
        let planned = plan.withLock { plan -> Result<(PlannedChange, UInt64), FeedError> in
            let checked: UpdatePlanner.Checked
            do throws(FeedError) {
                checked = try UpdatePlanner(old: plan.structure, changes: changes, newCounts: counts).check()
            } catch {
                return .failure(error)
            }
            let planned = UpdatePlanner.makeEdits(checked, applyingTo: &plan.structure, nextID: &plan.nextID)
            return .success((PlannedChange(delta: planned.delta, newItems: planned.newItems, width: plan.width), plan.takeTicket()))
        }
        let (change, ticket) = try planned.get()
        submit(ticket, change, dataSource: dataSource, relayoutAll: false, reloaded: changes.reloadedItems.count) { summary in
            completion?(summary)
        }
    }

    /// Lays every cell out again for a new width, in parallel, and commits the new heights in one turn. MAY be
    /// called from any thread; a width that is not a finite number >= 0 is ignored.
    public func setWidth(_ width: Double) {
        guard width.isFinite && width >= 0 else { return }
        let (change, ticket) = plan.withLock { plan -> (PlannedChange, UInt64) in
            plan.width = width
            // Reported under the plan lock, so that of two racing calls the width reported is the one planned
            // last (set before taking it, the other call's width could be reported while this one's was laid
            // out). Lock order: plan, then settings (no code holds settings while it takes plan).
            settings.withLock { $0.width = width }
            return (PlannedChange(delta: StructureDelta(), newItems: [], width: width), plan.takeTicket())
        }
        submit(ticket, change, dataSource: nil, relayoutAll: true, reloaded: 0) { _ in }
    }

    /// Asks the data source for the blocks of the change's new items (on the calling thread, no lock held),
    /// then hands the change to the editing queue in ticket order.
    private func submit(
        _ ticket: UInt64, _ change: PlannedChange, dataSource: (any FeedDataSource)?, relayoutAll: Bool,
        reloaded: Int, completion: @escaping @Sendable (BatchUpdateSummary) -> Void
    ) {
        let newCells: [NewCell] = change.newItems.compactMap { id, path in
            guard let dataSource else { return nil }
            return NewCell(id: id, path: path, block: dataSource.feed(self, cellNodeBlockForItemAt: path),
                           range: dataSource.feed(self, sizeRangeForItemAt: path))
        }
        let queue = context.applyQueue
        queue.beginWork()
        sequencer.submit(ticket) {
            self.edit(ticket: ticket, delta: change.delta, newCells: newCells, width: change.width,
                      relayoutAll: relayoutAll, reloaded: reloaded, completion: completion)
            queue.endWork()
        }
    }

    /// Runs one change on the editing queue: makes and lays out its cells, applies its edits to the editing
    /// queue's structure, and queues the commit on the apply queue. Changes run here one at a time, in the
    /// order they were planned. Costs what the change changes: its new cells, its edits at O(log n) each and its
    /// leaving cells (a width change lays every cell out).
    private func edit(
        ticket: UInt64, delta planned: StructureDelta, newCells: [NewCell], width: Double, relayoutAll: Bool,
        reloaded: Int, completion: @escaping @Sendable (BatchUpdateSummary) -> Void
    ) {
        let queue = context.applyQueue
        let feedContext = context
        let started = DispatchTime.now().uptimeNanoseconds
        var delta = planned
        if let refused = plan.withLock({ ticket < $0.refusedBelow ? $0.refusal : nil }) {
            // Planned on the structure of a change refused since: a width change lays out what stands; any
            // other change is refused with it.
            guard relayoutAll else {
                refuse(FeedError("this change was planned after one that was refused (\(refused)); the feed is as it was before that one"),
                       ticket: ticket, completion: completion)
                return
            }
            delta = StructureDelta()
        }
        // Make the new cells, in parallel.
        var cellNanoseconds = DispatchTime.now().uptimeNanoseconds
        let made = ParallelResults<CellNode>(count: newCells.count)
        DispatchQueue.concurrentPerform(iterations: newCells.count) { i in
            let cell = newCells[i].block()
            cell.context = feedContext
            made.set(i, cell)
        }
        cellNanoseconds = DispatchTime.now().uptimeNanoseconds - cellNanoseconds
        // Before anything touches them: each cell must be in one place (claimed for its item, or refused).
        if let error = claimCells(newCells, made) {
            refuse(error, ticket: ticket, completion: completion)
            return
        }
        var leaving: [(ItemID, CellNode)] = []
        leaving.reserveCapacity(delta.leaving.count)
        for id in delta.leaving {
            editing.ranges.removeValue(forKey: id)
            guard let cell = editing.cells.removeValue(forKey: id) else { continue }
            _ = cell.ownerClaim.compareExchange(expected: id, desired: 0, ordering: .acquiringAndReleasing)
            leaving.append((id, cell))
        }
        var arriving: [(ItemID, CellNode)] = []
        arriving.reserveCapacity(newCells.count)
        for (i, new) in newCells.enumerated() {
            guard let cell = made[i] else { continue }
            editing.cells[new.id] = cell
            if let range = new.range { editing.ranges[new.id] = range }
            arriving.append((new.id, cell))
        }
        editing.structure.apply(delta)
        // Lay out the new cells (or all of them for a width change), in parallel.
        let toLayOut: [(ItemID, CellNode)] = relayoutAll ? editing.cells.map { ($0.key, $0.value) } : arriving
        let layoutStarted = DispatchTime.now().uptimeNanoseconds
        let passes = ParallelResults<Result<LayoutPass, HierarchyError>>(count: toLayOut.count)
        let cellRanges = editing.ranges
        DispatchQueue.concurrentPerform(iterations: toLayOut.count) { i in
            let (id, cell) = toLayOut[i]
            let range = cellRanges[id] ?? SizeRange(min: Size(width, 0), max: Size(width, .infinity))
            cell.setConstrainedRangeQuietly(range)
            do throws(HierarchyError) {
                passes.set(i, .success(try LayoutPass.compute(root: cell, range: range)))
            } catch {
                passes.set(i, .failure(error))
            }
        }
        let now = DispatchTime.now().uptimeNanoseconds
        cellNanoseconds += now - layoutStarted
        let seconds = Double(now - started) / 1e9
        self.feedStatistics.withLock {
            $0.cellsLaidOut += toLayOut.count
            $0.layoutSeconds += seconds
        }
        let laidOut = (0..<toLayOut.count).map { (toLayOut[$0].0, toLayOut[$0].1, passes[$0]) }
        let commit = Commit(
            delta: delta, arriving: arriving, leaving: leaving, laidOut: laidOut, reloaded: reloaded,
            laidOutAreNew: !relayoutAll, cellSeconds: Double(cellNanoseconds) / 1e9, completion: completion)
        queue.enqueue { self.receive(commit) }
    }
}

extension FeedNode {
    /// Claims each new cell for its item; when a cell block returned a cell that another item of the change got
    /// too, or one that an item of this or another feed holds (a cell node belongs to one item), lets go of the
    /// claims made here and returns an error naming the cell and both its places. On the editing queue.
    func claimCells(_ newCells: [NewCell], _ made: ParallelResults<CellNode>) -> FeedError? {
        var placeOf: [ObjectIdentifier: ItemPath] = [:]
        placeOf.reserveCapacity(newCells.count)
        var claimed: [(CellNode, ItemID)] = []
        claimed.reserveCapacity(newCells.count)
        func refuse(_ error: FeedError) -> FeedError {
            for (cell, id) in claimed {
                _ = cell.ownerClaim.compareExchange(expected: id, desired: 0, ordering: .acquiringAndReleasing)
            }
            return error
        }
        for (i, new) in newCells.enumerated() {
            guard let cell = made[i] else { continue }
            let key = ObjectIdentifier(cell)
            if let first = placeOf[key] {
                return refuse(FeedError(
                    "\(cell.displayName) is returned for two items, \(first) and \(new.path); a cell node belongs to one item"))
            }
            let (exchanged, held) = cell.ownerClaim.compareExchange(expected: 0, desired: new.id, ordering: .acquiringAndReleasing)
            guard exchanged else {
                let place = editing.cells[held] === cell
                    ? "the feed at " + (editing.path(of: held).map { "\($0)" } ?? "another item") + " (before this change)"
                    : "another feed"
                return refuse(FeedError(
                    "\(cell.displayName) returned for \(new.path) is already in \(place); a cell node belongs to one item"))
            }
            claimed.append((cell, new.id))
            placeOf[key] = new.path
        }
        return nil
    }

    /// Refuses the change of `ticket` on the editing queue: nothing of it is kept, `completion` gets `error`
    /// on the apply queue in its turn, and the plan goes back to the structure that stands. Changes planned
    /// on top of the refused one until now (tickets below the next) are refused in their turn too.
    func refuse(_ error: FeedError, ticket: UInt64, completion: @escaping @Sendable (BatchUpdateSummary) -> Void) {
        let standing = editing.structure
        plan.withLock { plan in
            // (A change refused for coming after a refused one leaves the plan as that one left it.)
            guard ticket >= plan.refusedBelow else { return }
            plan.structure = standing
            plan.refusedBelow = plan.nextTicket
            plan.refusal = error
        }
        let refusal = Commit.refused(error, completion: completion)
        context.applyQueue.enqueue { self.receive(refusal) }
    }
}

/// Results written by parallel workers, each slot by one worker, read after they all finished.
final class ParallelResults<T>: @unchecked Sendable {
    // @unchecked: each slot is written by exactly one iteration of a concurrentPerform and read after it returns.
    private let slots: UnsafeMutableBufferPointer<T?>

    init(count: Int) {
        slots = .allocate(capacity: max(count, 1))
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    func set(_ index: Int, _ value: T) {
        slots[index] = value
    }

    subscript(index: Int) -> T? { slots[index] }
}
