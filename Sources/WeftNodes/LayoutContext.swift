import Dispatch

/// Where a node tree lays out and commits: the pixel scale, the apply queue that owns the live hierarchy, the
/// queue background layout passes run on, and the statistics its work is counted in.
///
/// A tree (a root node and its subnodes) or a feed (and its cells) belongs to one context. Two contexts work
/// side by side in one process: a server may lay out for 2x and 3x clients at once, each with its own apply
/// queue and counters. ``default`` (scale 2, ``ApplyQueue/main``, ``NodeStatistics/shared``) is what nodes
/// use until they are given another.
///
/// Immutable and Sendable: MAY be shared by any threads.
public final class LayoutContext: Sendable {
    /// Pixels per point: layouts are rounded to this grid.
    public let scale: Double
    /// The queue on which hierarchies of this context change (Texture's main thread).
    public let applyQueue: ApplyQueue
    /// Where passes scheduled by `setNeedsLayout`, transitions and feed edits compute layouts.
    public let layoutQueue: DispatchQueue
    /// The counters of this context's layout work.
    public let statistics: NodeStatistics

    /// A context; `layoutQueue` defaults to the global user-initiated queue, `statistics` to new counters.
    public init(
        scale: Double = 2, applyQueue: ApplyQueue, layoutQueue: DispatchQueue = .global(qos: .userInitiated),
        statistics: NodeStatistics = NodeStatistics()
    ) {
        self.scale = scale
        self.applyQueue = applyQueue
        self.layoutQueue = layoutQueue
        self.statistics = statistics
    }

    /// Scale 2, ``ApplyQueue/main``, the global user-initiated queue and ``NodeStatistics/shared``.
    public static let `default` = LayoutContext(scale: 2, applyQueue: .main, statistics: .shared)
}
