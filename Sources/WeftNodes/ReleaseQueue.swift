import WeftLayout
import WeftSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a thread is letting go of (``Node``'s deinit): the first deinit on the thread that hands something over
/// drains the queue, releasing one item at a time; a deinit that runs within that (a node released by the loop)
/// only adds what it held to the queue. So freeing a hierarchy, or a chain of nodes that only cached layouts or
/// spec blocks hold, takes one loop, not a call per level.
enum ReleaseQueue {
    /// What a going node held that can hold other nodes.
    enum Item {
        case nodes(NodeList)
        case layout(StoredLayout)
        case diff(HierarchyDiff)
        case block(LayoutSpecBlock)
        case record(RootRecord)
    }

    private final class Pending {
        var items: [Item] = []
        var draining = false
    }

    private static let key = threadObjectKey()

    /// What a going node held that can hold other nodes, taken out of it.
    struct Held {
        var nodes = NodeList()
        var layouts: (StoredLayout?, StoredLayout?, StoredLayout?, StoredLayout?) = (nil, nil, nil, nil)
        var applied: StoredLayout?
        var diff: HierarchyDiff?
        var block: LayoutSpecBlock?
        var record: RootRecord?
    }

    /// Lets go of what a going node held (each nil or empty part skipped) on the calling thread, in a loop shared
    /// with every deinit nested in it. (Added to the thread's queue, whose storage is kept: no allocation. Taken
    /// out of `held`, left empty: a part left with the caller would be freed by it, recursively, after the loop.)
    static func release(_ held: inout Held) {
        let pending: Pending
        if let pointer = pthread_getspecific(key) {
            pending = Unmanaged<Pending>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            pending = Pending()
            pthread_setspecific(key, Unmanaged.passRetained(pending).toOpaque())
        }
        if !held.nodes.isEmpty {
            var nodes = NodeList()
            swap(&nodes, &held.nodes)
            pending.items.append(.nodes(nodes))
        }
        if let layout = held.layouts.0.take() { pending.items.append(.layout(layout)) }
        if let layout = held.layouts.1.take() { pending.items.append(.layout(layout)) }
        if let layout = held.layouts.2.take() { pending.items.append(.layout(layout)) }
        if let layout = held.layouts.3.take() { pending.items.append(.layout(layout)) }
        if let applied = held.applied.take() { pending.items.append(.layout(applied)) }
        if let diff = held.diff.take() { pending.items.append(.diff(diff)) }
        if let block = held.block.take() { pending.items.append(.block(block)) }
        if let record = held.record.take() { pending.items.append(.record(record)) }
        guard !pending.draining else { return }
        pending.draining = true
        defer { pending.draining = false }
        while !pending.items.isEmpty {
            // Released here, at the end of the iteration: a node it frees appends what it held.
            _ = pending.items.removeLast()
        }
        // (Its storage kept for the next hierarchy, unless a large one grew it.)
        if pending.items.capacity > 4096 { pending.items = [] }
    }
}
