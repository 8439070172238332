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
/// one first-in first-out queue.
///
/// Why not Dispatch or the event loop: decoding and layout recurse once per element level and need real stack
/// (``FeedServerConfiguration/layoutStackSize``), Dispatch's worker threads have 512 KB, and NIO's event loop
/// threads must never be blocked by layout work. Request handlers hand jobs here with ``submit(_:)`` and await
/// the result through a continuation (see ``LayoutService``).
///
/// Threading: ``submit(_:)`` MAY be called from any thread. Each job runs on one layout thread, with that
/// thread's `LayoutBuilder` (reset after every job), and MUST NOT block waiting for another job. The queue is
/// one mutex and one condition variable; no lock is held while a job runs.
///
/// Lifecycle: the threads start with the pool. As a `Service`, the pool runs until graceful shutdown, then
/// stops taking jobs, lets the threads finish every job already queued, and returns once they have exited.
/// Put it before the HTTP server in a `ServiceGroup` so that the server (and its requests in flight) stops
/// first. A pool dropped without running stops its threads the same way.
public final class LayoutThreads: Service, Sendable {
    /// The number of threads.
    public let count: Int
    private let queue: JobQueue

    /// Starts `count` threads with `stackSize` bytes of stack each.
    public init(count: Int, stackSize: Int, scale: Double = 2) {
        self.count = max(1, count)
        queue = JobQueue()
        for i in 0..<self.count {
            let thread = Thread { [queue] in
                // Named (best effort) from inside too: on Linux a name set before `start()` may not reach it.
                Thread.current.name = "weft-layout-\(i)"
                Thread.current.threadDictionary[Self.indexKey] = i
                queue.work(scale: scale)
            }
            thread.name = "weft-layout-\(i)"
            thread.stackSize = stackSize
            queue.threadStarted()
            thread.start()
        }
    }

    deinit {
        queue.close()
    }

    /// Queues `job`; returns false (and drops it) once the pool is shutting down.
    @discardableResult
    public func submit(_ job: @escaping LayoutJob) -> Bool {
        queue.push(job)
    }

    /// The index of the layout thread this is called on (of whichever pool), or nil on any other thread.
    public static var currentThreadIndex: Int? {
        Thread.current.threadDictionary[indexKey] as? Int
    }

    private static let indexKey = "weft.layoutThreadIndex"

    /// The number of jobs waiting for a thread.
    public var queuedJobs: Int { queue.waiting }

    /// Runs until graceful shutdown (or cancellation), then stops the threads as ``shutdown()`` does.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Stops taking jobs, lets the threads finish the queued ones, and returns when every thread has exited.
    public func shutdown() async {
        queue.close()
        await queue.waitUntilStopped()
    }
}

/// The pool's queue: jobs, the count of live threads and who waits for them to stop, behind one mutex.
private final class JobQueue: @unchecked Sendable {
    // @unchecked: every stored property is read and written with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [LayoutJob?] = []  // taken jobs are set to nil, so they are released once run
    private var head = 0
    private var closed = false
    private var liveThreads = 0
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    var waiting: Int { locked { jobs.count - head } }

    func threadStarted() {
        locked { liveThreads += 1 }
    }

    func push(_ job: @escaping LayoutJob) -> Bool {
        let accepted = locked { () -> Bool in
            guard !closed else { return false }
            jobs.append(job)
            return true
        }
        if accepted { pthread_cond_signal(condition) }
        return accepted
    }

    /// The next job, waiting for one; nil once the queue is closed and empty.
    private func pop() -> LayoutJob? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while head == jobs.count && !closed {
            pthread_cond_wait(condition, mutex)
        }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    func close() {
        locked { closed = true }
        pthread_cond_broadcast(condition)
    }

    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = locked { () -> Bool in
                if liveThreads == 0 { return true }
                stopWaiters.append(continuation)
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    /// A layout thread's whole life: run jobs until the queue closes and drains.
    func work(scale: Double) {
        var builder = LayoutBuilder(scale: scale)
        while let job = pop() {
            job(&builder)
            builder.reset()  // drop the last document's elements here, on this thread's large stack
        }
        let waiters = locked { () -> [CheckedContinuation<Void, Never>] in
            liveThreads -= 1
            guard liveThreads == 0 else { return [] }
            defer { stopWaiters.removeAll() }
            return stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
