import Foundation
import ServiceLifecycle
import WeftLayout

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A piece of decode and layout work, run on a layout thread with that thread's own layout arena.
public typealias LayoutJob = @Sendable (inout LayoutBuilder) -> Void

/// The server's own small pool of layout threads: one per core by default, each with a large stack, fed from
/// one queue that is fair between requests.
///
/// Why not Dispatch or the event loop: decoding and layout recurse once per element level and need real stack
/// (``FeedServerConfiguration/layoutStackSize``), Dispatch's worker threads have 512 KB, and NIO's event loop
/// threads must never be blocked by layout work. Request handlers hand jobs here with ``submit(_:in:)`` and
/// await the result through a continuation (see ``LayoutService``).
///
/// Fairness: each request's jobs form a ``JobGroup``; groups take turns (round robin), and one group runs at
/// most ``count`` jobs at once. A request that has taken more than `slowAfter` of layout time (5 ms by
/// default; a photo cell takes about 50 µs) is *slow*: its remaining jobs run on ``count`` more threads at
/// the idle scheduling class (Linux `SCHED_IDLE`), which get a core only when no normal thread wants it. A
/// single job that runs longer than `slowAfter` is handed off: its thread drops to the idle class and leaves
/// the pool when the job ends, and a fresh thread takes its place at once (at most `4 * count` handed off at a
/// time). A slow request that has waited `promoteAfter` (200 ms by default) is let back to normal priority
/// with a new budget, so that under sustained load it still progresses. So costly requests cannot slow cheap
/// ones down much, whatever they hold. Jobs cannot be interrupted; the layout service stops its own at
/// checkpoints when a deadline passes.
///
/// Threading: ``submit(_:in:)`` MAY be called from any thread. Each job runs on one layout thread, with that
/// thread's `LayoutBuilder` (reset after every job), and MUST NOT block waiting for another job. The queue is
/// one mutex and two condition variables; no lock is held while a job runs.
///
/// Lifecycle: the threads start with the pool. As a `Service`, the pool runs until graceful shutdown, then
/// stops taking jobs, lets the threads finish every job already queued, and returns once they have exited
/// (handed-off threads are not waited for: their requests are over, and they end with the process), or once
/// `stopWait` has passed: a job that cannot be stopped must not keep the process from exiting.
/// Put it before the HTTP server in a `ServiceGroup` so that the server (and its requests in flight) stops
/// first. A pool dropped without running stops its threads the same way.
public final class LayoutThreads: Service, Sendable {
    /// The number of threads at normal priority (and of threads at idle priority for slow requests).
    public let count: Int
    private let queue: JobQueue
    private let stackSize: Int
    private let scale: Double
    /// How long a graceful shutdown waits for running jobs (those of requests already answered, or timed out).
    public let stopWait: Duration

    /// Starts `count` threads with `stackSize` bytes of stack each (and `count` at idle priority), and the
    /// monitor that hands off jobs running longer than `slowAfter` (calling `onHandOff` for each, on the
    /// monitor's thread). A slow request waits at most `promoteAfter` before it may run at normal priority again.
    /// A graceful shutdown waits at most `stopWait` for the jobs still running.
    public init(count: Int, stackSize: Int, scale: Double = 2, slowAfter: Duration = .milliseconds(5),
                promoteAfter: Duration = .milliseconds(200), stopWait: Duration = .seconds(10),
                onHandOff: @escaping @Sendable () -> Void = {}) {
        self.count = max(1, count)
        self.stopWait = stopWait
        self.stackSize = stackSize
        self.scale = scale
        queue = JobQueue(perGroup: self.count, slowAfter: slowAfter, promoteAfter: promoteAfter,
                         maxHandedOff: 4 * self.count)
        for i in 0..<self.count {
            start(queue.addWorker(index: i, isIdleLane: false))
        }
        for i in 0..<self.count {
            start(queue.addWorker(index: self.count + i, isIdleLane: true))
        }
        let monitor = Thread { [queue, stackSize, scale] in
            queue.monitor(onHandOff: onHandOff) { worker in
                Self.start(worker, queue: queue, stackSize: stackSize, scale: scale)
            }
        }
        monitor.name = "weft-layout-monitor"
        monitor.stackSize = 1 << 20
        monitor.start()
    }

    deinit {
        queue.close()
    }

    private func start(_ worker: Worker) {
        Self.start(worker, queue: queue, stackSize: stackSize, scale: scale)
    }

    private static func start(_ worker: Worker, queue: JobQueue, stackSize: Int, scale: Double) {
        let index = worker.index
        let thread = Thread {
            // Named (best effort) from inside too: on Linux a name set before `start()` may not reach it.
            Thread.current.name = "weft-layout-\(index)"
            Thread.current.threadDictionary[indexKey] = index
            queue.work(worker, scale: scale)
        }
        thread.name = "weft-layout-\(index)"
        thread.stackSize = stackSize
        thread.start()
    }

    /// Queues `job` in `group`; returns false (and drops it) once the pool is shutting down.
    @discardableResult
    public func submit(_ job: @escaping LayoutJob, in group: JobGroup) -> Bool {
        queue.push(job, in: group)
    }

    /// Drops the jobs of `group` that have not started, and returns how many; call once their request is over.
    @discardableResult
    public func discardPending(in group: JobGroup) -> Int {
        queue.discard(group)
    }

    /// Queues `job` in a group of its own.
    @discardableResult
    public func submit(_ job: @escaping LayoutJob) -> Bool {
        queue.push(job, in: JobGroup())
    }

    /// The index of the layout thread this is called on (of whichever pool), or nil on any other thread.
    public static var currentThreadIndex: Int? {
        Thread.current.threadDictionary[indexKey] as? Int
    }

    private static let indexKey = "weft.layoutThreadIndex"

    /// The number of jobs waiting for a thread.
    public var queuedJobs: Int { queue.counts.waiting }

    /// The number of threads handed off now (running a slow job at idle priority), and the number of jobs
    /// handed off since the pool started.
    public var slowJobs: (running: Int, total: Int) {
        let counts = queue.counts
        return (counts.handedOff, counts.slowJobs)
    }

    /// Runs until graceful shutdown (or cancellation), then stops the threads as ``shutdown(waitingAtMost:)``
    /// does, waiting at most `stopWait`.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown(waitingAtMost: stopWait)
    }

    /// Stops taking jobs, lets the threads finish the queued ones, and returns when every thread of the pool
    /// has exited (not waiting for handed-off ones), or after `limit`, whichever comes first: a job that
    /// cannot be stopped must not hold the process up. Returns whether every thread had exited.
    @discardableResult
    public func shutdown(waitingAtMost limit: Duration = .seconds(10)) async -> Bool {
        queue.close()
        return await queue.waitUntilStopped(within: limit)
    }
}
