import Dispatch
import WeftLayout
import WeftNodes

/// A change ready to commit: planned on the editing queue, applied on the apply queue.
struct Commit: @unchecked Sendable {
    // @unchecked: built on the editing queue, handed to the apply queue once, never touched again there.
    /// The change's edits of the structure.
    let delta: StructureDelta
    let arriving: [(ItemID, CellNode)]
    let leaving: [(ItemID, CellNode)]
    /// The cells laid out for the change, with their passes: their heights are their new layouts'.
    let laidOut: [(ItemID, CellNode, Result<LayoutPass, HierarchyError>?)]
    let reloaded: Int
    /// Whether every laid-out cell is new (not yet in the feed): their hierarchies can be put in place in
    /// turns before the commit, where nothing shows them yet.
    let laidOutAreNew: Bool
    /// See ``BatchUpdateSummary/cellSeconds``.
    var cellSeconds = 0.0
    /// Why the change was refused on the editing queue (nothing to commit: its completion is told in its turn).
    var refusal: FeedError? = nil
    let completion: @Sendable (BatchUpdateSummary) -> Void

    /// What the commit's turn works through: its edits, leaving cells and laid-out cells (for predicting it).
    var workItems: Int { delta.size + leaving.count + laidOut.count }
}

extension FeedNode {

    /// Takes a commit on the apply queue; commits are done in the order received.
    func receive(_ commit: Commit) {
        live.commits.append(commit)
        if !live.driving {
            live.driving = true
            drive()
        }
    }

    /// Works through the received commits for at most about ``commitTurnBudget`` of this turn, then goes on in
    /// the next.
    ///
    /// A commit's new cells get their hierarchies first, a few per turn if there are many: they are not in the
    /// feed yet, so nothing shows them, and the feed's structure and the data source still agree between
    /// turns. Then, in one turn, the commit itself: removed cells leave, the new order, heights and offsets
    /// are swapped in (one pass over plain arrays, planned on the editing queue).
    ///
    /// A turn stops before the work that would take it past the budget, as predicted from what the work took so
    /// far: the next cell, by the slowest cell of this turn; the commit, by the last commit's time per item
    /// (1 us per item before the first). So a turn overruns only by the error of that prediction, or when one
    /// cell, or the commit alone (its edits, which cannot be split without showing half of them), takes longer
    /// than the budget. Each turn puts at least one cell in place, or commits.
    func drive() {
        let queue = context.applyQueue
        let callStarted = DispatchTime.now().uptimeNanoseconds
        // The budget is the turn's: what ran before this call in the same turn (other batches, another commit)
        // counts. (Outside a turn, in a `sync` block, this call's own start.)
        let turnStarted = queue.turnStart
        let started = turnStarted != 0 && turnStarted <= callStarted ? turnStarted : callStarted
        let budget = Self.nanoseconds(settings.withLock { $0.commitTurnBudget })
        func elapsed() -> UInt64 { DispatchTime.now().uptimeNanoseconds - started }
        func nextTurn() {
            queue.enqueue { self.drive() }
        }
        // (Work before this call in the turn counts once it took more than a sliver of the budget.)
        var worked = callStarted - started > budget / 16
        while live.nextCommit < live.commits.count {
            let commit = live.commits[live.nextCommit]
            if let refusal = commit.refusal {
                live.commits[live.nextCommit] = Commit.done
                live.nextCommit += 1
                commit.completion(BatchUpdateSummary(turns: 0, error: refusal))
                continue
            }
            var preparedNow = false
            if commit.laidOutAreNew {
                let preparing = DispatchTime.now().uptimeNanoseconds
                defer { live.preparedSeconds += Double(DispatchTime.now().uptimeNanoseconds - preparing) / 1e9 }
                var previous = elapsed()
                var slowest: UInt64 = 0
                while live.prepared < commit.laidOut.count {
                    let (_, cell, result) = commit.laidOut[live.prepared]
                    _ = applyPass(cell, result)
                    live.preparedCells.append(cell)
                    live.prepared += 1
                    preparedNow = true
                    worked = true
                    let now = elapsed()
                    slowest = max(slowest, now - previous)
                    previous = now
                    if live.prepared < commit.laidOut.count && now > budget &- min(budget, slowest) {
                        live.preparedTurns += 1
                        nextTurn()
                        return
                    }
                }
            }
            // The commit gets a turn of its own when it would take this one past its budget after other work
            // (once: a commit longer than the budget runs alone in the next turn, whatever comes before it there).
            let items = Double(commit.workItems)
            let predicted = Self.nanoseconds(items * (live.commitSecondsPerItem ?? 1e-6))
            if worked && !live.commitDeferred && elapsed() > budget &- min(budget, predicted) {
                live.commitDeferred = true
                if preparedNow { live.preparedTurns += 1 }
                nextTurn()
                return
            }
            live.commitDeferred = false
            var summary = apply(commit)
            worked = true
            live.commitSecondsPerItem = summary.commitSeconds / max(1, items)
            summary.preparationSeconds = live.preparedSeconds
            summary.turns = live.preparedTurns + 1
            live.commits[live.nextCommit] = Commit.done
            live.nextCommit += 1
            live.prepared = 0
            live.preparedCells.removeAll(keepingCapacity: true)
            live.preparedSeconds = 0
            live.preparedTurns = 0
            commit.completion(summary)
            if live.nextCommit < live.commits.count && elapsed() > budget {
                nextTurn()
                return
            }
        }
        live.commits.removeAll(keepingCapacity: true)
        live.nextCommit = 0
        live.driving = false
    }

    /// `seconds` in nanoseconds, for budgets and predictions: 0 for a negative or NaN value, and at most 1e10
    /// seconds (an infinite or huge budget is no budget; sums of two stay below `UInt64.max`).
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        return seconds < 1e10 ? UInt64(seconds * 1e9) : 10_000_000_000_000_000_000
    }

    /// Applies a cell's pass (or reports its failure); returns the cell's height after it.
    private func applyPass(_ cell: CellNode, _ result: Result<LayoutPass, HierarchyError>?) -> Double {
        switch result {
        case .success(let pass):
            do {
                // A cell that changed while its layout was computed lays itself out again.
                let applied = try pass.apply()
                if applied.needsAnotherPass { cell.requestAnotherPass(after: applied) }
            } catch {
                cell.didFailLayout(error)
            }
        case .failure(let error):
            cell.didFailLayout(error)
        case nil:
            break
        }
        return cell.frame.size.height
    }

    /// Commits a change on the apply queue: removed cells leave first, then the laid-out cells' hierarchies
    /// (unless they were put in place in earlier turns), then the change's edits of the structure, each in
    /// O(log n), with the new heights (the offsets below follow in the structure's sums). No layout is computed
    /// here.
    private func apply(_ commit: Commit) -> BatchUpdateSummary {
        let commitStarted = DispatchTime.now().uptimeNanoseconds
        var summary = BatchUpdateSummary()
        // Deletions first.
        for (_, cell) in commit.leaving {
            try? cell.setInterfaceState([])  // on the apply queue: cannot be refused
            cell.setOwner(nil)
            let slot = cell.ownerSlot
            if slot >= 0 && slot < live.cellBySlot.count && live.cellBySlot[Int(slot)] === cell {
                live.cellBySlot[Int(slot)] = nil
                live.states.removeValue(forKey: slot)
            }
            cell.ownerSlot = -1
        }
        // Then the laid-out cells' hierarchies, if not done already.
        // (New cells put in place in earlier turns are read again: one may have laid itself out again since,
        // when it had no owner to tell.)
        var heights: [ItemID: Double] = [:]
        heights.reserveCapacity(commit.laidOut.count)
        if commit.laidOutAreNew {
            for (i, cell) in live.preparedCells.enumerated() { heights[commit.laidOut[i].0] = cell.appliedSize.height }
        } else {
            for (id, cell, result) in commit.laidOut { heights[id] = applyPass(cell, result) }
        }
        let link = live.cellLink ?? CellOwnerLink(self)
        live.cellLink = link
        var placing: [ItemID: CellNode] = [:]
        placing.reserveCapacity(commit.arriving.count)
        for (id, cell) in commit.arriving {
            placing[id] = cell
            cell.setOwner(link)
        }
        // The edits. An item that moves takes its cell, height and range state along (its slot changes); a new
        // one takes its layout's height (0 when it has none).
        var moved: [ItemID: (cell: CellNode?, height: Double, state: InterfaceState?)] = [:]
        var structure = FeedStructure()
        swap(&structure, &live.structure)
        var cellBySlot = PagedArray<CellNode?>()
        swap(&cellBySlot, &live.cellBySlot)
        var states: [ItemSequence.Slot: InterfaceState] = [:]
        swap(&states, &live.states)
        structure.apply(commit.delta, removed: { id, height, slot in
            moved[id] = (cellBySlot[Int(slot)], height, states.removeValue(forKey: slot))
            cellBySlot[Int(slot)] = nil
        }, placed: { id, slot in
            while cellBySlot.count <= Int(slot) { cellBySlot.append(nil) }
            let carried = moved.removeValue(forKey: id)
            let cell = placing[id] ?? carried?.cell
            cellBySlot[Int(slot)] = cell
            cell?.ownerSlot = slot
            if let state = carried?.state { states[slot] = state }
            return heights[id] ?? carried?.height ?? 0
        })
        // Cells laid out again in place (a width change): their new heights.
        if !commit.laidOutAreNew {
            for (id, cell, _) in commit.laidOut {
                let slot = cell.ownerSlot
                guard slot >= 0, let height = heights[id] else { continue }
                structure.items.setWeight(height, ofSlot: slot)
            }
        }
        swap(&structure, &live.structure)
        swap(&cellBySlot, &live.cellBySlot)
        swap(&states, &live.states)
        updateRangesAndFetch()
        summary.deleted = commit.leaving.count - commit.reloaded
        summary.inserted = commit.arriving.count - commit.reloaded
        summary.reloaded = commit.reloaded
        summary.cellsLaidOut = commit.laidOut.count
        summary.cellSeconds = commit.cellSeconds
        summary.commitSeconds = Double(DispatchTime.now().uptimeNanoseconds - commitStarted) / 1e9
        feedStatistics.withLock {
            $0.commits += 1
            $0.itemsInserted += summary.inserted
            $0.itemsDeleted += summary.deleted
            $0.structureEdits += commit.delta.size
        }
        return summary
    }
}

extension Commit {
    /// What a done commit's slot holds until the list is emptied (so that its cells can go).
    static let done = Commit(
        delta: StructureDelta(), arriving: [], leaving: [], laidOut: [], reloaded: 0, laidOutAreNew: true, completion: { _ in })

    /// A change refused on the editing queue: its place in the order of commits, to tell `completion` why.
    static func refused(_ error: FeedError, completion: @escaping @Sendable (BatchUpdateSummary) -> Void) -> Commit {
        Commit(
            delta: StructureDelta(), arriving: [], leaving: [], laidOut: [], reloaded: 0, laidOutAreNew: true,
            refusal: error, completion: completion)
    }
}
