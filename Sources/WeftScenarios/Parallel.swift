import Dispatch
import Foundation
import Synchronization
import WeftNodes

/// Splitting work between threads for the parallel scenarios.
public enum Parallel {
    /// `count` items split into `parts` contiguous ranges whose sizes differ by at most one, in order, covering
    /// `0..<count` exactly once. Parts beyond `count` are empty (never past the end).
    public static func partition(count: Int, parts: Int) -> [Range<Int>] {
        let count = max(count, 0)
        let parts = max(parts, 1)
        return (0..<parts).map { part in
            (part * count / parts)..<((part + 1) * count / parts)
        }
    }

    /// Runs `body` over `0..<count` on exactly `threads` threads: each thread takes the next of
    /// `threads x 8` parts until none is left (so a slow thread does not hold the others up). Returns when
    /// every part is done; the first error any part threw is rethrown.
    public static func run(
        threads: Int, count: Int, _ body: @escaping @Sendable (Range<Int>) throws -> Void
    ) throws {
        let parts = partition(count: count, parts: max(threads, 1) * 8)
        if threads <= 1 {
            for part in parts { try body(part) }
            return
        }
        let group = DispatchGroup()
        let work = WorkList(parts: parts, body: body)
        for _ in 0..<threads {
            group.enter()
            let thread = Thread {
                work.drain()
                group.leave()
            }
            thread.start()
        }
        group.wait()
        if let error = work.firstError.withLock({ $0 }) { throw error }
    }

    /// The parts and the shared cursor the threads of ``run(threads:count:_:)`` take them from.
    private final class WorkList: Sendable {
        let parts: [Range<Int>]
        let next = Atomic<Int>(0)
        let firstError = Guarded<(any Error)?>(nil)
        let body: @Sendable (Range<Int>) throws -> Void

        init(parts: [Range<Int>], body: @escaping @Sendable (Range<Int>) throws -> Void) {
            self.parts = parts
            self.body = body
        }

        func drain() {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < parts.count else { return }
                do {
                    try body(parts[index])
                } catch {
                    firstError.withLock { if $0 == nil { $0 = error } }
                    // Stop handing out parts: the run has failed.
                    next.store(parts.count, ordering: .relaxed)
                    return
                }
            }
        }
    }
}
