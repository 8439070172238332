#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The jobs of one request: run round robin with the other groups' jobs, at most ``LayoutThreads/count`` of
/// them at once, so that a page of thousands of cells cannot hold every thread while a small page waits.
///
/// A group whose job has run longer than the pool's slow-job time is *slow*: its remaining jobs run only when
/// no other group has work waiting.
public final class JobGroup: @unchecked Sendable {
    // @unchecked: every stored property is read and written with the queue's mutex held.
    var jobs: [LayoutJob?] = []
    var head = 0
    var running = 0
    var isSlow = false
    var isListed = false

    public init() {}

    var pending: Int { jobs.count - head }

    /// Takes the next job (the caller holds the queue's mutex).
    func take() -> LayoutJob? {
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256 && head * 2 >= jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}

/// A first-in first-out list of groups with work to hand out.
struct GroupList {
    private var groups: [JobGroup] = []
    private var head = 0

    var first: JobGroup? { head < groups.count ? groups[head] : nil }

    mutating func append(_ group: JobGroup) { groups.append(group) }

    mutating func removeFirst() {
        head += 1
        if head == groups.count {
            groups.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256 && head * 2 >= groups.count {
            groups.removeFirst(head)
            head = 0
        }
    }
}

/// One thread of the pool, as the queue sees it: the job it runs and since when.
final class Worker: @unchecked Sendable {
    // @unchecked: every stored property is read and written with the queue's mutex held.
    let index: Int
    var thread: pthread_t?
    var group: JobGroup?
    var started: UInt64 = 0
    /// Set when the worker's job was found slow and a fresh worker took its place in the pool; it leaves the
    /// pool once its job ends.
    var handedOff = false

    init(index: Int) {
        self.index = index
    }
}

/// The time on the monotonic clock, in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Lowers the calling pool's `thread` to the idle scheduling class (Linux `SCHED_IDLE`): it then runs only
/// when no normal thread wants the core. Only ever lowered, never raised again (unprivileged processes may
/// not): a lowered thread leaves the pool after its job.
func lowerPriority(_ thread: pthread_t) {
    #if os(Linux)
    var parameters = sched_param()
    parameters.sched_priority = 0
    let schedIdle: Int32 = 5  // SCHED_IDLE in <bits/sched.h>, not imported into Swift
    _ = pthread_setschedparam(thread, schedIdle, &parameters)
    #endif
}
