import Synchronization
import WeftLayout

/// The stop hook of the layout measuring a leaf now (``LayoutBuilder/shouldStop``), for the measurers inside the
/// leaf's `sizeThatFits` (a text node's): bound, as a task-local value, only while a leaf whose builder has a hook
/// is measured, so that a node's overrides of `sizeThatFits` and `calculateSizeThatFits` sit between the layout
/// and the measurer unchanged. A measurement the hook stopped is noted here, and the layout then ends with the
/// builder's stop error, whatever size the leaf's code made of the failure.
final class MeasurementStop: Sendable {
    /// The hook of the leaf being measured on this thread (or task), if its builder has one.
    @TaskLocal static var current: MeasurementStop?

    let shouldStop: @Sendable () -> Bool
    /// Whether a measurement ended because the hook said stop.
    private let stopped = Atomic<Bool>(false)

    init(_ shouldStop: @escaping @Sendable () -> Bool) {
        self.shouldStop = shouldStop
    }

    /// Notes that a measurement stopped.
    func noteStopped() {
        stopped.store(true, ordering: .relaxed)
    }

    var didStop: Bool { stopped.load(ordering: .relaxed) }
}

extension Node {
    /// ``sizeThatFits(_:)`` with `shouldStop` where the measurers it calls can ask it; a measurement it stopped
    /// ends the layout with ``LayoutBuilder/stoppedReason`` (and nothing is stored for the leaf).
    @inline(never)
    func sizeThatFits(_ constrainedSize: Size, stoppingWith shouldStop: @escaping @Sendable () -> Bool) throws(LayoutError) -> Size {
        let stop = MeasurementStop(shouldStop)
        let measured = MeasurementStop.$current.withValue(stop) { () -> Result<Size, LayoutError> in
            do throws(LayoutError) {
                return .success(try sizeThatFits(constrainedSize))
            } catch {
                return .failure(error)
            }
        }
        if stop.didStop { throw LayoutError(LayoutBuilder.stoppedReason, kind: .limit) }
        return try measured.get()
    }
}
