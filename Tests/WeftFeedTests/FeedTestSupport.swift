import Dispatch
import Foundation
import WeftLayout
@testable import WeftNodes
@testable import WeftFeed
import WeftSync

/// A cell whose height comes from its value (10 + value % 50) and which records the range events it gets
/// and whether any of its layout work ran on the apply queue.
final class ValueCell: CellNode, @unchecked Sendable {
    let value: Int
    private let log = Locked<[String]>([])
    private let onApplyQueue = Locked(false)

    init(value: Int) {
        self.value = value
        super.init()
        identifier = "v\(value)"
    }

    static func height(_ value: Int) -> Double { Double(10 + value % 50) }

    var events: [String] { log.withLock { $0 } }
    var laidOutOnApplyQueue: Bool { onApplyQueue.withLock { $0 } }

    override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        if ApplyQueue.main.isCurrent { onApplyQueue.withLock { $0 = true } }
        return StackSpec.vertical(children: [Box(size: Size(10, Self.height(value)))])
    }

    override func didEnterVisibleState() { log.withLock { $0.append("+visible") } }
    override func didExitVisibleState() { log.withLock { $0.append("-visible") } }
    override func didEnterDisplayState() { log.withLock { $0.append("+display") } }
    override func didExitDisplayState() { log.withLock { $0.append("-display") } }
    override func didEnterPreloadState() { log.withLock { $0.append("+preload") } }
    override func didExitPreloadState() { log.withLock { $0.append("-preload") } }
}

/// A data source over sections of integers.
final class ValueSource: FeedDataSource, @unchecked Sendable {
    let model: Locked<[[Int]]>

    init(_ sections: [[Int]]) {
        model = Locked(sections)
    }

    func numberOfSections(in feed: FeedNode) -> Int { model.withLock { $0.count } }

    func feed(_ feed: FeedNode, numberOfItemsInSection section: Int) -> Int {
        model.withLock { $0[section].count }
    }

    func feed(_ feed: FeedNode, cellNodeBlockForItemAt itemPath: ItemPath) -> CellNodeBlock {
        let value = model.withLock { $0[itemPath.section][itemPath.item] }
        return { ValueCell(value: value) }
    }
}

/// Waits for a feed operation's completion.
final class Waiter: @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    let summaries = Locked<[BatchUpdateSummary]>([])

    func done(_ summary: BatchUpdateSummary) {
        summaries.withLock { $0.append(summary) }
        semaphore.signal()
    }

    func wait() -> Bool { semaphore.wait(timeout: .now() + 30) == .success }
}

func feedValues(_ feed: FeedNode) -> [[Int]] {
    feed.cellNodes.map { $0.map { ($0 as? ValueCell)?.value ?? -1 } }
}

func settleAll() throws {
    guard try ApplyQueue.main.settle(timeout: 60) else { throw FeedError("the apply queue did not settle") }
}

/// A slot of the structure after an update: an item kept from before, or a new one (at its path).
enum Slot: Equatable {
    case kept(ItemID)
    case new(ItemPath)
}

/// Plans `changes` on a structure of `old`'s sections and items with `counts` after it; returns each section's
/// slots after the change.
func plannedSlots(_ old: [[ItemID]], _ changes: ChangeSet, _ counts: [Int]) throws(FeedError) -> [[Slot]] {
    var structure = FeedStructure(counts: old.map(\.count), ids: Array(old.joined()))
    let checked = try UpdatePlanner(old: structure, changes: changes, newCounts: counts).check()
    var nextID = (old.joined().max() ?? 0) + 1
    let planned = UpdatePlanner.makeEdits(checked, applyingTo: &structure, nextID: &nextID)
    let newPaths = Dictionary(uniqueKeysWithValues: planned.newItems.map { ($0.0, $0.1) })
    return structure.sectionsOfIDs.map { ids in ids.map { id in newPaths[id].map { .new($0) } ?? .kept(id) } }
}
