import NIOConcurrencyHelpers
import NIOCore

/// A circuit breaker for the shared cache: after ``Settings/failuresToOpen`` failures in a row it *opens*, and
/// callers skip Redis for a backoff time; then one call is let through (half open): a success closes the
/// circuit and resets the backoff, a failure opens it again for twice as long (at most
/// ``Settings/longestBackoff``).
///
/// Threading: every method MAY be called from any thread (one lock, held only to read and update the state).
public final class RedisCircuit: Sendable {
    public struct Settings: Sendable {
        public var failuresToOpen = 5
        public var shortestBackoff: Duration = .milliseconds(100)
        public var longestBackoff: Duration = .seconds(2)

        public init() {}
    }

    private struct State {
        var failures = 0
        var openUntil: NIODeadline?
        var probing = false
        var backoff: Duration
        var opened = 0
    }

    public let settings: Settings
    private let state: NIOLockedValueBox<State>

    public init(_ settings: Settings = Settings()) {
        self.settings = settings
        state = NIOLockedValueBox(State(backoff: settings.shortestBackoff))
    }

    /// Whether a call may go to Redis now: the circuit is closed, or its backoff has passed and no other probe
    /// is out.
    public func allows(now: NIODeadline = .now()) -> Bool {
        state.withLockedValue { state in
            guard let until = state.openUntil else { return true }
            guard now >= until, !state.probing else { return false }
            state.probing = true
            return true
        }
    }

    /// Records a call's outcome.
    public func record(success: Bool, now: NIODeadline = .now()) {
        state.withLockedValue { state in
            if success {
                state.failures = 0
                state.openUntil = nil
                state.probing = false
                state.backoff = settings.shortestBackoff
                return
            }
            state.failures += 1
            guard state.failures >= settings.failuresToOpen else { return }
            if state.openUntil != nil {
                // A failed probe (or a call that was already out): back off for longer.
                state.backoff = min(state.backoff * 2, settings.longestBackoff)
            } else {
                state.opened += 1
            }
            state.openUntil = now + TimeAmount(state.backoff)
            state.probing = false
        }
    }

    /// Whether the circuit is open now, and how many times it has opened.
    public var status: (isOpen: Bool, opened: Int) {
        state.withLockedValue { ($0.openUntil.map { NIODeadline.now() < $0 } ?? false, $0.opened) }
    }
}
