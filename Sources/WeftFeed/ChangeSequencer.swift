import Dispatch
import WeftNodes
import WeftSync

/// Runs a feed's changes on its editing queue in the order they were planned.
///
/// A change takes a ticket while the feed's plan lock is held (so tickets follow plan order), then, with no
/// lock held, asks the data source for its cells, then submits its job with the ticket. Jobs reach the
/// editing queue strictly in ticket order, whatever order their threads submit them in: a job that arrives
/// early waits here for the ones before it. (Queueing each job as it arrived let a job planned on an older
/// structure run after a newer one and drop the newer one's cells.)
final class ChangeSequencer: Sendable {
    private struct State {
        var nextToRun: UInt64 = 0
        var waiting: [UInt64: @Sendable () -> Void] = [:]
    }

    private let queue: DispatchQueue
    private let state = Locked(State())

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Submits the job of `ticket`: it runs on the editing queue after every job of a smaller ticket. Every
    /// ticket handed out must be submitted exactly once.
    func submit(_ ticket: UInt64, _ job: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.waiting[ticket] = job
            // Queue every job that is next in line; async only queues (no user code runs under the lock).
            while let next = state.waiting.removeValue(forKey: state.nextToRun) {
                queue.async(execute: next)
                state.nextToRun += 1
            }
        }
    }

    /// Runs `body` on the editing queue after every job submitted so far, and waits for it (for tests).
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        try queue.sync(execute: body)
    }
}
