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
/// A group whose jobs have taken more than the pool's slow-job time in all is *slow*: its remaining jobs run
/// on the pool's idle-priority threads, which get a core only when nothing else wants it. A slow group that
/// has waited there for the pool's promotion time is made fast again, with a new budget, so that a request
/// taken for slow by mistake (a cold start) still finishes under sustained load.
public final class JobGroup: @unchecked Sendable {
    // @unchecked: every stored property is read and written with the queue's mutex held.
    var jobs = FIFO<LayoutJob>()
    var running = 0
    private(set) var isSlow = false
    /// When it last became slow (monotonic nanoseconds).
    private(set) var slowSince: UInt64 = 0
    var isListed = false
    /// Nanoseconds of CPU time its finished jobs took since it was last fast.
    var spent: UInt64 = 0

    /// A group, slow from the start if `isSlow` (a request known to be costly, such as a large body).
    public init(isSlow: Bool = false) {
        if isSlow { markSlow() }
    }

    func markSlow() {
        guard !isSlow else { return }
        isSlow = true
        slowSince = monotonicNanoseconds()
    }

    /// Makes it fast again with a new budget (after it has waited long enough in the slow lane).
    func promote() {
        isSlow = false
        spent = 0
    }

    var pending: Int { jobs.count }
}

/// A first-in first-out queue: an array read from a moving head, compacted once half of it is spent. Taken
/// elements are released at once.
struct FIFO<Element> {
    private var elements: [Element?] = []
    private var head = 0

    var count: Int { elements.count - head }
    var first: Element? { head < elements.count ? elements[head] : nil }

    mutating func append(_ element: Element) { elements.append(element) }

    @discardableResult
    mutating func removeFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        elements[head] = nil
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256 && head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}

/// One thread of the pool, as the queue sees it: the job it runs and since when.
final class Worker: @unchecked Sendable {
    // @unchecked: every stored property is read and written with the queue's mutex held.
    let index: Int
    /// Whether the worker runs slow groups' jobs, at idle priority (else fast groups', at normal priority).
    let isIdleLane: Bool
    var thread: pthread_t?
    /// The clock of the thread's CPU time, and its reading when the current job started.
    var cpuClock = clockid_t(CLOCK_THREAD_CPUTIME_ID)
    var group: JobGroup?
    var started: UInt64 = 0
    /// Set when the worker's job was found slow and a fresh worker took its place in the pool; it leaves the
    /// pool once its job ends.
    var handedOff = false

    init(index: Int, isIdleLane: Bool) {
        self.index = index
        self.isIdleLane = isIdleLane
    }
}

/// The time on the monotonic clock, in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    nanoseconds(on: CLOCK_MONOTONIC)
}

/// The reading of `clock` (such as a thread's CPU-time clock), in nanoseconds.
func nanoseconds(on clock: clockid_t) -> UInt64 {
    var now = timespec()
    clock_gettime(clock, &now)
    return UInt64(max(0, now.tv_sec)) * 1_000_000_000 + UInt64(max(0, now.tv_nsec))
}

/// Lowers `thread` to the idle scheduling class (Linux `SCHED_IDLE`): it then runs only when no normal thread
/// wants the core. Only ever lowered, never raised again (unprivileged processes may not).
func lowerPriority(_ thread: pthread_t) {
    #if os(Linux)
    var parameters = sched_param()
    parameters.sched_priority = 0
    let schedIdle: Int32 = 5  // SCHED_IDLE in <bits/sched.h>, not imported into Swift
    _ = pthread_setschedparam(thread, schedIdle, &parameters)
    #endif
}
