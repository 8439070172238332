#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WeftLayout

/// The pool's queue and bookkeeping behind one mutex: the groups with work, the workers and what they run,
/// the count of live threads and who waits for them to stop.
///
/// Scheduling: a worker takes the next job of the first group in the *fast* list, then puts the group back at
/// the end if it has more (round robin), unless it already runs `perGroup` jobs. Slow groups' jobs are taken
/// only when no fast group has any, and only while fewer than `maxHandedOff` workers are handed off.
///
/// Slow jobs: a monitor thread looks at the running jobs every half `slowAfter`. A job running longer than
/// that is handed off: its thread is lowered to the idle scheduling class and leaves the pool when the job
/// ends, a fresh thread takes its place at once, and the job's group becomes slow. So a request that cannot
/// be stopped (a long text being measured inside one layout) keeps neither a thread nor a core from the
/// others, while at most `maxHandedOff` such threads exist.
final class JobQueue: @unchecked Sendable {
    // @unchecked: every stored property is read and written with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private let monitorCondition: UnsafeMutablePointer<pthread_cond_t>
    let perGroup: Int
    let slowAfter: UInt64
    let maxHandedOff: Int
    private var fast = GroupList()
    private var slow = GroupList()
    private(set) var waiting = 0
    private var closed = false
    private var workers: [Worker] = []
    private var liveThreads = 0
    private var handedOff = 0
    private var slowJobs = 0
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    init(perGroup: Int, slowAfter: Duration, maxHandedOff: Int) {
        self.perGroup = max(1, perGroup)
        let (seconds, attoseconds) = slowAfter.components
        self.slowAfter = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        self.maxHandedOff = max(0, maxHandedOff)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
        monitorCondition = .allocate(capacity: 1)
        monitorCondition.initialize(to: pthread_cond_t())
        pthread_cond_init(monitorCondition, nil)
    }

    deinit {
        for pointer in [condition, monitorCondition] {
            pthread_cond_destroy(pointer)
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Jobs waiting, workers handed off now, and jobs handed off since the start.
    var counts: (waiting: Int, handedOff: Int, slowJobs: Int) {
        locked { (waiting, handedOff, slowJobs) }
    }

    /// A new worker for pool index `index`, counted as live from now on.
    func addWorker(index: Int) -> Worker {
        locked {
            let worker = Worker(index: index)
            if workers.count <= index { workers.append(worker) } else { workers[index] = worker }
            liveThreads += 1
            return worker
        }
    }

    func push(_ job: @escaping LayoutJob, in group: JobGroup) -> Bool {
        let accepted = locked { () -> Bool in
            guard !closed else { return false }
            group.jobs.append(job)
            waiting += 1
            list(group)
            return true
        }
        if accepted { pthread_cond_signal(condition) }
        return accepted
    }

    /// Puts `group` on its list if it has work it may start now.
    private func list(_ group: JobGroup) {
        guard !group.isListed, group.pending > 0, group.running < perGroup else { return }
        group.isListed = true
        if group.isSlow { slow.append(group) } else { fast.append(group) }
    }

    /// The next job for `worker`, waiting for one; nil once the queue is closed and empty.
    private func next(for worker: Worker) -> (LayoutJob?, JobGroup)? {
        while true {
            while let group = fast.first, group.isSlow {
                fast.removeFirst()
                slow.append(group)
            }
            let group: JobGroup? = if let first = fast.first {
                first
            } else if let first = slow.first, closed || handedOff < maxHandedOff {
                first
            } else {
                nil
            }
            if let group {
                if group.isSlow { slow.removeFirst() } else { fast.removeFirst() }
                group.isListed = false
                let job = group.take()
                group.running += 1
                waiting -= 1
                list(group)
                return (job, group)
            }
            if closed && waiting == 0 { return nil }
            pthread_cond_wait(condition, mutex)
        }
    }

    func close() {
        locked { closed = true }
        pthread_cond_broadcast(condition)
        pthread_cond_signal(monitorCondition)
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

    /// A worker's whole life: run jobs until the queue closes and drains, or until the worker is handed off.
    func work(_ worker: Worker, scale: Double) {
        var builder = LayoutBuilder(scale: scale)
        pthread_mutex_lock(mutex)
        worker.thread = pthread_self()
        while let (job, group) = next(for: worker) {
            worker.group = group
            worker.started = monotonicNanoseconds()
            pthread_cond_signal(monitorCondition)
            pthread_mutex_unlock(mutex)
            job?(&builder)
            builder.reset()  // drop the last document's elements here, on this thread's large stack
            pthread_mutex_lock(mutex)
            worker.group = nil
            group.running -= 1
            list(group)
            if worker.handedOff {
                handedOff -= 1
                pthread_cond_broadcast(condition)  // a slow job may start now
                break
            }
            pthread_cond_signal(condition)
        }
        liveThreads -= 1
        var waiters: [CheckedContinuation<Void, Never>] = []
        if liveThreads == 0 {
            waiters = stopWaiters
            stopWaiters.removeAll()
        }
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(monitorCondition)
        for waiter in waiters { waiter.resume() }
    }

    /// The monitor's whole life: hand off slow jobs until the queue closes and every worker has stopped.
    /// `start` starts a thread for a fresh worker; `onHandOff` hears of each job handed off.
    func monitor(onHandOff: () -> Void, start: (Worker) -> Void) {
        pthread_mutex_lock(mutex)
        while !(closed && liveThreads == 0) {
            guard workers.contains(where: { $0.group != nil && !$0.handedOff }) else {
                pthread_cond_wait(monitorCondition, mutex)
                continue
            }
            var wake = timespec()
            clock_gettime(CLOCK_REALTIME, &wake)
            let nanoseconds = Int(wake.tv_nsec) + Int(max(slowAfter / 2, 1_000_000))
            wake.tv_sec += nanoseconds / 1_000_000_000
            wake.tv_nsec = nanoseconds % 1_000_000_000
            pthread_cond_timedwait(monitorCondition, mutex, &wake)
            let now = monotonicNanoseconds()
            var lowered: [pthread_t] = []
            var fresh: [Worker] = []
            for old in workers where old.group != nil && !old.handedOff && now &- old.started >= slowAfter {
                guard handedOff < maxHandedOff, let thread = old.thread else { break }
                old.handedOff = true
                old.group?.isSlow = true
                handedOff += 1
                slowJobs += 1
                let worker = Worker(index: old.index)
                workers[old.index] = worker
                liveThreads += 1
                lowered.append(thread)
                fresh.append(worker)
            }
            pthread_mutex_unlock(mutex)
            for thread in lowered { lowerPriority(thread) }
            for worker in fresh {
                start(worker)
                onHandOff()
            }
            pthread_mutex_lock(mutex)
        }
        pthread_mutex_unlock(mutex)
    }
}
