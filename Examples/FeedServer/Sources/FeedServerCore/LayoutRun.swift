import NIOConcurrencyHelpers
import WeftLayout

/// How a layout request ended.
public enum LayoutOutcome: Sendable, Equatable {
    /// The answer's body: a document's output, or `{"cells": [...]}` for a page.
    case laidOut(String)
    /// Bad input (`.malformed`, `.invalid`) or input over a limit (`.limit`).
    case refused(LayoutError)
    /// The answer was not ready within the time limit.
    case timedOut(Duration)
    /// The client closed its connection before the answer was ready; the work stopped.
    case abandoned
    /// The layout threads are shutting down.
    case unavailable
}

/// One request's progress through the layout threads: the outputs gathered so far, the elements counted, and
/// the continuation its handler awaits, behind one lock.
///
/// The first of these to happen finishes the run and resumes the continuation, exactly once: the last cell
/// delivered, a cell refused, the element count going over the limit, the deadline passing, or the client
/// leaving. Jobs check ``shouldStop`` when they start and between their steps (parsing checks it every 1,024
/// values, `Layout.compute` every 256 layouts), so the work of a finished or late run stops within
/// microseconds, except inside one text's measurement, which cannot be interrupted.
///
/// Threading: every method MAY be called from any thread. The lock is held only to read and update the
/// state; the answer is assembled and the continuation resumed after it is let go.
final class LayoutRun: Sendable {
    private struct State {
        var continuation: CheckedContinuation<LayoutOutcome, Never>?
        var finished = false
        var isPage = false
        var outputs: [String?] = []
        var remaining = 0
        var elements = 0
        var layoutTime: Duration = .zero
    }

    private let state = NIOLockedValueBox(State())
    /// The run's jobs, scheduled fairly with other runs' (see ``LayoutThreads``).
    let group: JobGroup
    /// The time limit, and when it runs out.
    let timeout: Duration
    let deadline: ContinuousClock.Instant

    /// A run that must end within `timeout`; `isLarge` puts its jobs with the slow ones from the start.
    init(timeout: Duration, isLarge: Bool = false) {
        self.timeout = timeout
        deadline = .now + timeout
        group = JobGroup(isSlow: isLarge)
    }

    /// Attaches the continuation to resume when the run finishes; call before any job of the run is queued.
    func attach(_ continuation: CheckedContinuation<LayoutOutcome, Never>) {
        state.withLockedValue { $0.continuation = continuation }
    }

    /// The time its cells took to decode, lay out and render, summed over the cells delivered.
    var layoutTime: Duration {
        state.withLockedValue { $0.layoutTime }
    }

    /// Whether the run is over (answered, refused, timed out or abandoned).
    var isFinished: Bool {
        state.withLockedValue { $0.finished }
    }

    /// Whether the run's work should stop: it is over, or its deadline has passed (which ends it as timed
    /// out). Cheap enough to ask often: one uncontended lock and one clock read.
    var shouldStop: Bool {
        if isFinished { return true }
        guard ContinuousClock.now >= deadline else { return false }
        finish(.timedOut(timeout))
        return true
    }

    /// Ends the run with `outcome` unless it has already ended.
    func finish(_ outcome: LayoutOutcome) {
        let continuation = state.withLockedValue { state -> CheckedContinuation<LayoutOutcome, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// Starts gathering `outputs.count` cells, the known ones (cache hits) filled in and holding `elements`
    /// elements. Returns false if those are already more than `maxElements` (the caller refuses the run).
    /// Finishes the run at once if every cell is known.
    func begin(isPage: Bool, outputs: [String?], elements: Int, maxElements: Int) -> Bool {
        guard elements <= maxElements else { return false }
        let complete = state.withLockedValue { state -> [String?]? in
            state.isPage = isPage
            state.outputs = outputs
            state.remaining = outputs.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
            state.elements = elements
            return state.remaining == 0 ? state.outputs : nil
        }
        if let complete { finish(.laidOut(Self.body(complete, isPage: isPage))) }
        return true
    }

    /// Adds the elements of a decoded cell; false if the run's total goes over `maxElements`.
    func addElements(_ count: Int, maxElements: Int) -> Bool {
        state.withLockedValue { state in
            state.elements += count
            return state.elements <= maxElements
        }
    }

    /// Records a cell's output, which took `layoutTime` to decode, lay out and render; the last one finishes
    /// the run with the assembled answer.
    func deliver(_ output: String, at index: Int, layoutTime: Duration = .zero) {
        let complete = state.withLockedValue { state -> (outputs: [String?], isPage: Bool)? in
            state.layoutTime += layoutTime
            guard !state.finished, state.outputs.indices.contains(index), state.outputs[index] == nil else { return nil }
            state.outputs[index] = output
            state.remaining -= 1
            return state.remaining == 0 ? (state.outputs, state.isPage) : nil
        }
        if let complete { finish(.laidOut(Self.body(complete.outputs, isPage: complete.isPage))) }
    }

    /// The answer's body: a document's output as `weft layout` prints it, or a page's outputs embedded as raw
    /// JSON (each exactly as rendered, less its final newline) in `{"cells": [...]}`.
    static func body(_ outputs: [String?], isPage: Bool) -> String {
        guard isPage else { return outputs.first.flatMap { $0 } ?? "" }
        guard !outputs.isEmpty else { return "{\"cells\": []}\n" }
        var body = "{\"cells\": [\n"
        body.reserveCapacity(outputs.reduce(32) { $0 + ($1?.utf8.count ?? 0) + 2 })
        for (i, output) in outputs.enumerated() {
            if i > 0 { body += ",\n" }
            let cell = output ?? "null"
            // Less the final newlines, found in the UTF-8 view (Character-wise trimming is much slower).
            let utf8 = cell.utf8
            var end = utf8.endIndex
            while end > utf8.startIndex, utf8[utf8.index(before: end)] == UInt8(ascii: "\n") {
                end = utf8.index(before: end)
            }
            body += cell[..<end]
        }
        body += "\n]}\n"
        return body
    }
}
