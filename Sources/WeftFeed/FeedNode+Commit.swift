import Dispatch
import WeftLayout
import WeftNodes

/// A change ready to commit: planned on the editing queue, applied on the apply queue.
struct Commit: @unchecked Sendable {
    // @unchecked: built on the editing queue, handed to the apply queue once, never touched again there.
    let structure: [[ItemID]]
    /// Items in flat order after the change.
    let order: [ItemID]
    /// For each: its flat index before the change, or -1 (new, not laid out), or -2 - i (laid out now as
    /// `laidOut[i]`: its height is its new layout's).
    let sources: [Int32]
    let arriving: [(ItemID, CellNode)]
    let leaving: [(ItemID, CellNode)]
    let laidOut: [(CellNode, Result<LayoutPass, HierarchyError>?)]
    let reloaded: Int
    /// Whether every laid-out cell is new (not yet in the feed): their hierarchies can be put in place in
    /// turns before the commit, where nothing shows them yet.
    let laidOutAreNew: Bool
    let completion: @Sendable (BatchUpdateSummary) -> Void
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
    /// cell, or the commit alone (its pass over the whole feed, which cannot be split without showing half of
    /// it), takes longer than the budget. Each turn puts at least one cell in place, or commits.
    func drive() {
        let started = DispatchTime.now().uptimeNanoseconds
        let budget = UInt64(max(0, settings.withLock { $0.commitTurnBudget }) * 1e9)
        func elapsed() -> UInt64 { DispatchTime.now().uptimeNanoseconds - started }
        func nextTurn() {
            context.applyQueue.enqueue { self.drive() }
        }
        while live.nextCommit < live.commits.count {
            let commit = live.commits[live.nextCommit]
            if commit.laidOutAreNew {
                if live.preparedHeights.count != commit.laidOut.count {
                    live.preparedHeights = [Double](repeating: 0, count: commit.laidOut.count)
                }
                let preparing = DispatchTime.now().uptimeNanoseconds
                defer { live.preparedSeconds += Double(DispatchTime.now().uptimeNanoseconds - preparing) / 1e9 }
                let preparedBefore = live.prepared
                var previous = elapsed()
                var slowest: UInt64 = 0
                while live.prepared < commit.laidOut.count {
                    let (cell, result) = commit.laidOut[live.prepared]
                    live.preparedHeights[live.prepared] = applyPass(cell, result)
                    live.prepared += 1
                    let now = elapsed()
                    slowest = max(slowest, now - previous)
                    previous = now
                    if live.prepared < commit.laidOut.count && now + slowest > budget {
                        live.preparedTurns += 1
                        nextTurn()
                        return
                    }
                }
                // The commit gets a turn of its own when it would take this one past its budget.
                let items = Double(commit.order.count + commit.leaving.count)
                let predicted = UInt64(items * (live.commitSecondsPerItem ?? 1e-6) * 1e9)
                if live.prepared > preparedBefore && elapsed() + predicted > budget {
                    live.preparedTurns += 1
                    nextTurn()
                    return
                }
            }
            var summary = apply(commit)
            live.commitSecondsPerItem = summary.commitSeconds / max(1, Double(commit.order.count + commit.leaving.count))
            summary.preparationSeconds = live.preparedSeconds
            summary.turns = live.preparedTurns + 1
            live.commits[live.nextCommit] = Commit.done
            live.nextCommit += 1
            live.prepared = 0
            live.preparedHeights = []
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
    /// (unless they were put in place in earlier turns), the new order and the offsets are swapped in. No
    /// layout is computed here.
    private func apply(_ commit: Commit) -> BatchUpdateSummary {
        let commitStarted = DispatchTime.now().uptimeNanoseconds
        var summary = BatchUpdateSummary()
        // Deletions first.
        for (id, cell) in commit.leaving {
            try? cell.setInterfaceState([])  // on the apply queue: cannot be refused
            cell.setOwner(nil)
            live.states.removeValue(forKey: ObjectIdentifier(cell))
            live.cells.removeValue(forKey: id)
        }
        // Then the laid-out cells' hierarchies, if not done already.
        let heights = commit.laidOutAreNew ? live.preparedHeights : commit.laidOut.map { applyPass($0.0, $0.1) }
        let link = live.cellLink ?? CellOwnerLink(self)
        live.cellLink = link
        // (The cells are taken out of `live` for the loop: each access to a stored property of the feed is
        // checked for exclusivity, about 80 instructions.)
        var cells: [ItemID: CellNode] = [:]
        swap(&cells, &live.cells)
        cells.reserveCapacity(cells.count + commit.arriving.count)
        for (id, cell) in commit.arriving {
            cells[id] = cell
            cell.setOwner(link)
        }
        swap(&cells, &live.cells)
        // The new order, heights and offsets (each array written once, in one pass: filled with zeros first,
        // they cost two memsets of the whole feed per commit).
        let oldHeights = live.heights
        let sources = commit.sources
        let newHeights = [Double](unsafeUninitializedCapacity: sources.count) { buffer, initialized in
            for (i, source) in sources.enumerated() {
                buffer.initializeElement(at: i, to: source >= 0 ? oldHeights[Int(source)] : source <= -2 ? heights[Int(-2 - source)] : 0)
            }
            initialized = sources.count
        }
        live.structure = commit.structure
        live.order = commit.order
        live.setHeights(newHeights)
        live.indexIsStale = true
        updateRangesAndFetch()
        summary.deleted = commit.leaving.count - commit.reloaded
        summary.inserted = commit.arriving.count - commit.reloaded
        summary.reloaded = commit.reloaded
        summary.cellsLaidOut = commit.laidOut.count
        summary.commitSeconds = Double(DispatchTime.now().uptimeNanoseconds - commitStarted) / 1e9
        feedStatistics.withLock {
            $0.commits += 1
            $0.itemsInserted += summary.inserted
            $0.itemsDeleted += summary.deleted
        }
        return summary
    }
}

extension Commit {
    /// What a done commit's slot holds until the list is emptied (so that its cells can go).
    static let done = Commit(
        structure: [], order: [], sources: [], arriving: [], leaving: [], laidOut: [], reloaded: 0, laidOutAreNew: true,
        completion: { _ in })
}
