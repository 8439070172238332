import NIOConcurrencyHelpers
import NIOCore

/// A way for a request to hear that its client has left: ``start`` registers what to do (and returns false,
/// doing nothing, if the client has already gone), ``stop`` forgets it once the request is answered.
public struct ClientWatch: Sendable {
    public var start: @Sendable (_ onGone: @escaping @Sendable () -> Void) -> Bool
    public var stop: @Sendable () -> Void

    public init(start: @escaping @Sendable (_ onGone: @escaping @Sendable () -> Void) -> Bool, stop: @escaping @Sendable () -> Void) {
        self.start = start
        self.stop = stop
    }
}

/// The server's open connections: how many there are, which are idle and since when, and which request waits
/// to hear that its client left.
///
/// At most ``limit`` connections are served at once. A connection beyond it takes the place of the one idle
/// for longest (which is closed), or, when none is idle, is refused with a 503 and closed. Idle means no
/// request bytes since the last answer; a connection receiving a request or waiting for its answer is never
/// chosen. Finding the oldest idle connection is O(1) (an LRU list).
///
/// Threading: every method MAY be called from any thread (connections live on different event loops); one
/// lock guards the state, held only to read and update it. Channels are closed, and callbacks called, after
/// it is let go.
public final class ConnectionTracker: Sendable {
    /// What a connection is doing, as far as choosing one to close goes.
    public enum Phase: Sendable, Equatable {
        /// Nothing since the last answer (or since it opened).
        case idle
        /// A request's head or body is arriving.
        case receiving
        /// Every request received is being answered.
        case answering
    }

    /// What became of a new connection.
    enum Admission {
        case admitted
        /// Admitted in the place of this idle connection, to be closed.
        case admittedInPlaceOf(any Channel)
        /// Over the limit with no idle connection to close: refuse it.
        case refused
    }

    private struct Entry {
        let channel: any Channel
        var phase: Phase = .idle
        var onGone: (@Sendable () -> Void)?
        var gone = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The idle connections, least recently idle last.
        var idle = ByteBoundedLRU<ObjectIdentifier, Void>(capacity: .max)
    }

    /// The most connections served at once.
    public let limit: Int
    private let state = NIOLockedValueBox(State())

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The number of connections open now.
    public var openCount: Int { state.withLockedValue { $0.entries.count } }

    /// Registers a new connection, making room for it if need be.
    func open(_ channel: any Channel) -> Admission {
        let id = ObjectIdentifier(channel)
        return state.withLockedValue { state -> Admission in
            var admission = Admission.admitted
            if state.entries.count >= limit {
                guard let oldest = state.idle.oldestKey, let victim = state.entries.removeValue(forKey: oldest) else {
                    return .refused
                }
                state.idle.removeValue(forKey: oldest)
                admission = .admittedInPlaceOf(victim.channel)
            }
            state.entries[id] = Entry(channel: channel)
            state.idle.insert((), for: id, cost: 1)
            return admission
        }
    }

    /// Forgets a closed connection; a request still watching it hears that its client has gone.
    func closed(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let onGone = state.withLockedValue { state -> (@Sendable () -> Void)? in
            state.idle.removeValue(forKey: id)
            return state.entries.removeValue(forKey: id)?.onGone
        }
        onGone?()
    }

    /// Notes that the client closed its side of `channel`: the request it is waiting for, if any, is abandoned.
    func inputClosed(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let onGone = state.withLockedValue { state -> (@Sendable () -> Void)? in
            state.entries[id]?.gone = true
            defer { state.entries[id]?.onGone = nil }
            return state.entries[id]?.onGone
        }
        onGone?()
    }

    /// Records what `channel` is doing now.
    func setPhase(_ phase: Phase, of channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLockedValue { state in
            guard state.entries[id] != nil, state.entries[id]?.phase != phase else { return }
            state.entries[id]?.phase = phase
            if phase == .idle {
                state.idle.insert((), for: id, cost: 1)
            } else {
                state.idle.removeValue(forKey: id)
            }
        }
    }

    /// A watch on `channel`'s client for a request, or nil for a channel the tracker does not know (a test's).
    public func watch(_ channel: any Channel) -> ClientWatch? {
        let id = ObjectIdentifier(channel)
        guard state.withLockedValue({ $0.entries[id] != nil }) else { return nil }
        return ClientWatch(
            start: { [self] onGone in
                state.withLockedValue { state -> Bool in
                    guard let entry = state.entries[id], !entry.gone else { return false }
                    state.entries[id]?.onGone = onGone
                    return true
                }
            },
            stop: { [self] in state.withLockedValue { $0.entries[id]?.onGone = nil } }
        )
    }

    /// Closes every connection that has no fully received request waiting for its answer (the end of a
    /// shutdown's grace period); returns how many.
    @discardableResult
    public func closeUnanswered() -> Int {
        let channels = state.withLockedValue { state in
            state.entries.values.filter { $0.phase != .answering }.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
        return channels.count
    }
}
