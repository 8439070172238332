#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import WeftLayout

/// The pool's queue and bookkeeping behind one mutex: the groups with work, the workers and what they run,
/// the count of live threads and who waits for them to stop. Handed-off threads are not waited for: their
/// jobs belong to requests already answered or past their deadline, and they end with the process if not
/// before.
///
/// Two lanes: normal workers take jobs of *fast* groups, idle-lane workers (threads at the idle scheduling
/// class) take jobs of *slow* groups. In each lane a worker takes the next job of the first group in the list,
/// then puts the group back at the end if it has more (round robin), unless it already runs `perGroup` jobs.
///
/// A group becomes slow when its finished jobs have taken `slowAfter` of CPU time in all, or when one of its
/// jobs has run that long (CPU time, so that a job merely waiting for a core is not mistaken for a costly one):
/// a monitor thread looks at the running jobs every half `slowAfter`, and hands such a job off:
/// its thread is lowered to the idle class and leaves the pool when the job ends, and a fresh normal thread
/// takes its place at once. So a request that costs much, or cannot be stopped (a long text measured inside
/// one layout), keeps neither a thread nor a core from the others. At most `maxHandedOff` threads are handed
/// off at a time; beyond that a slow job keeps its normal thread. A slow group that has waited `promoteAfter`
/// for the idle lane (which may get no core under sustained load) with none of its jobs running is made fast
/// again with a new budget (a request taken for slow by mistake, by a job that paid for a cache's growth,
/// still finishes), unless the handed-off threads are all taken.
final class JobQueue: @unchecked Sendable {
    // @unchecked: every stored property is read and written with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private let monitorCondition: UnsafeMutablePointer<pthread_cond_t>
    let perGroup: Int
    let slowAfter: UInt64
    let promoteAfter: UInt64
    let maxHandedOff: Int
    private var fast = FIFO<JobGroup>()
    private var slow = FIFO<JobGroup>()
    private(set) var waiting = 0
    private var closed = false
    private var workers: [Worker] = []
    private var liveThreads = 0
    private var handedOff = 0
    private var slowJobs = 0
    /// Fast jobs running now, and when the last one ended: the idle lane starts a job only when the fast lane
    /// has been quiet for `quietGap` (so slow work keeps off the cores even at idle priority, where it would
    /// still share caches and hardware threads with the fast work).
    private var fastRunning = 0
    /// Whether the monitor waits for a job to start (else it wakes up on its own schedule).
    private var monitorIsIdle = false
    private var lastFastEnd: UInt64 = 0
    let quietGap: UInt64 = 1_000_000
    private var stopWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaiter = 0

    init(perGroup: Int, slowAfter: Duration, promoteAfter: Duration, maxHandedOff: Int) {
        self.perGroup = max(1, perGroup)
        self.slowAfter = Self.wholeNanoseconds(slowAfter)
        self.promoteAfter = Self.wholeNanoseconds(promoteAfter)
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

    static func wholeNanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
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

    /// A new worker for pool index `index` (normal workers are kept by index for the monitor), counted as
    /// live from now on.
    func addWorker(index: Int, isIdleLane: Bool) -> Worker {
        locked {
            let worker = Worker(index: index, isIdleLane: isIdleLane)
            if !isIdleLane {
                if workers.count <= index { workers.append(worker) } else { workers[index] = worker }
            }
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
        if accepted { pthread_cond_broadcast(condition) }  // one lane's workers may all be busy
        return accepted
    }

    /// Drops the jobs of `group` that have not started (its request is over): they, and what they hold (a
    /// body of up to the size limit), need not wait for a thread, which a slow lane may not give them soon.
    /// Returns how many.
    func discard(_ group: JobGroup) -> Int {
        locked {
            let dropped = group.jobs.count
            waiting -= dropped
            group.jobs = FIFO()
            return dropped
        }
    }

    /// Puts `group` on its list if it has work it may start now.
    private func list(_ group: JobGroup) {
        guard !group.isListed, group.pending > 0, group.running < perGroup else { return }
        group.isListed = true
        if group.isSlow { slow.append(group) } else { fast.append(group) }
    }

    /// The next job for `worker`, from its lane, waiting for one; nil once the queue is closed and empty.
    private func next(for worker: Worker) -> (LayoutJob?, JobGroup)? {
        while true {
            while let group = fast.first, group.isSlow {
                fast.removeFirst()
                slow.append(group)
            }
            let now = monotonicNanoseconds()
            // A slow group that has waited long enough takes its turn in the fast lane again, unless one of its
            // jobs still runs (a handed-off job: a request that is costly indeed) or the pool already has all
            // the handed-off threads it may (it is under heavy load).
            if let group = slow.first, now &- group.slowSince >= promoteAfter, group.running == 0,
               handedOff < maxHandedOff {
                slow.removeFirst()
                group.promote()
                fast.append(group)
                pthread_cond_broadcast(condition)
            }
            // The idle lane starts a job only once the fast lane has been quiet for `quietGap`.
            let fastBusy = fastRunning > 0 || fast.first != nil
            let quietFor = fastBusy ? 0 : now &- lastFastEnd
            let mayStart = !worker.isIdleLane || closed || quietFor >= quietGap
            if mayStart, let group = worker.isIdleLane ? slow.first : fast.first {
                if worker.isIdleLane { slow.removeFirst() } else { fast.removeFirst() }
                group.isListed = false
                guard group.pending > 0 else { continue }  // its jobs were discarded
                let job = group.jobs.removeFirst()
                group.running += 1
                waiting -= 1
                if !worker.isIdleLane { fastRunning += 1 }
                list(group)
                return (job, group)
            }
            if closed && waiting == 0 { return nil }
            // Wake up in time for the oldest slow group's promotion, or (idle lane) for a quiet enough gap.
            guard let oldest = slow.first, oldest.running == 0 else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            var wake = promoteAfter &- min(promoteAfter, now &- oldest.slowSince)
            if worker.isIdleLane && !fastBusy { wake = min(wake, quietGap &- min(quietGap, quietFor)) }
            wait(on: condition, nanoseconds: max(wake, 100_000))
        }
    }

    /// Waits on `condition` at most `nanoseconds` (the mutex held).
    private func wait(on condition: UnsafeMutablePointer<pthread_cond_t>, nanoseconds: UInt64) {
        var wake = timespec()
        clock_gettime(CLOCK_REALTIME, &wake)
        let total = Int(wake.tv_nsec) + Int(nanoseconds)
        wake.tv_sec += total / 1_000_000_000
        wake.tv_nsec = total % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &wake)
    }

    func close() {
        locked { closed = true }
        pthread_cond_broadcast(condition)
        pthread_cond_signal(monitorCondition)
    }

    /// Waits until every worker of the pool has exited, at most `limit`; returns whether they had.
    func waitUntilStopped(within limit: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiter = locked { () -> Int? in
                if liveThreads == 0 { return nil }
                nextWaiter += 1
                stopWaiters[nextWaiter] = continuation
                return nextWaiter
            }
            guard let waiter else { return continuation.resume(returning: true) }
            Task {
                try? await Task.sleep(for: limit)
                locked { stopWaiters.removeValue(forKey: waiter) }?.resume(returning: false)
            }
        }
    }

    /// A worker's whole life: run jobs until the queue closes and drains, or until the worker is handed off.
    func work(_ worker: Worker, scale: Double) {
        var builder = LayoutBuilder(scale: scale)
        if worker.isIdleLane { lowerPriority(pthread_self()) }
        var cpuClock = clockid_t(CLOCK_THREAD_CPUTIME_ID)
        pthread_getcpuclockid(pthread_self(), &cpuClock)
        pthread_mutex_lock(mutex)
        worker.thread = pthread_self()
        worker.cpuClock = cpuClock
        while let (job, group) = next(for: worker) {
            worker.group = group
            worker.started = nanoseconds(on: CLOCK_THREAD_CPUTIME_ID)
            if monitorIsIdle && !worker.isIdleLane { pthread_cond_signal(monitorCondition) }
            pthread_mutex_unlock(mutex)
            job?(&builder)
            builder.reset()  // drop the last document's elements here, on this thread's large stack
            let used = nanoseconds(on: CLOCK_THREAD_CPUTIME_ID) &- worker.started
            pthread_mutex_lock(mutex)
            worker.group = nil
            group.running -= 1
            group.spent &+= used
            if !worker.isIdleLane && !worker.handedOff {
                fastRunning -= 1
                lastFastEnd = monotonicNanoseconds()
            }
            if group.spent >= slowAfter { group.markSlow() }
            list(group)
            // Both lanes wait on one condition, and work may have moved lanes: wake them all.
            pthread_cond_broadcast(condition)
            if worker.handedOff {
                handedOff -= 1
                break
            }
        }
        if !worker.handedOff { liveThreads -= 1 }  // a handed-off worker left the pool's count when handed off
        var waiters: [CheckedContinuation<Bool, Never>] = []
        if liveThreads == 0 {
            waiters = Array(stopWaiters.values)
            stopWaiters.removeAll()
        }
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(monitorCondition)
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// The monitor's whole life: hand off slow jobs until the queue closes and every worker has stopped.
    /// `start` starts a thread for a fresh worker; `onHandOff` hears of each job handed off.
    func monitor(onHandOff: () -> Void, start: (Worker) -> Void) {
        pthread_mutex_lock(mutex)
        while !(closed && liveThreads == 0) {
            guard workers.contains(where: { $0.group != nil && !$0.handedOff }) else {
                monitorIsIdle = true
                pthread_cond_wait(monitorCondition, mutex)
                monitorIsIdle = false
                continue
            }
            wait(on: monitorCondition, nanoseconds: max(slowAfter / 2, 1_000_000))
            let now = monotonicNanoseconds()
            var lowered: [pthread_t] = []
            var fresh: [Worker] = []
            for old in workers where old.group != nil && !old.handedOff
                && nanoseconds(on: old.cpuClock) &- old.started >= slowAfter {
                guard handedOff < maxHandedOff, let thread = old.thread else { break }
                old.handedOff = true
                old.group?.markSlow()
                fastRunning -= 1  // it no longer runs in the fast lane
                lastFastEnd = now
                handedOff += 1
                slowJobs += 1
                let worker = Worker(index: old.index, isIdleLane: false)
                workers[old.index] = worker  // it takes the old one's place in the count of live threads
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
