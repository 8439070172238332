import NIOCore
import NIOHTTPTypes

/// The time limits on a connection, each counted from the start of its phase.
public struct ConnectionTimeouts: Sendable, Equatable {
    /// From the end of the last answer (or the connection's start) to the first byte of the next request.
    public var idle: Duration
    /// From the first byte of a request to the end of its head.
    public var header: Duration
    /// From the end of a request's head to the end of its body.
    public var body: Duration

    public init(idle: Duration, header: Duration, body: Duration) {
        self.idle = idle
        self.header = header
        self.body = body
    }
}

/// One connection's phase and the timer for it, on the connection's event loop; shared by its two handlers
/// (``RawBytesHandler`` before the HTTP decoder, ``RequestPartsHandler`` after it).
///
/// Phases: *idle* until a byte arrives (timer: ``ConnectionTimeouts/idle``, then the connection is closed);
/// *header* from that byte to the request's head (``ConnectionTimeouts/header``, then 408 and closed);
/// *body* from the head to the body's end (``ConnectionTimeouts/body``, then 408 and closed); *answering*
/// until the answer's end is written (no timer here: the request's own time limit bounds it); then idle
/// again. A deadline runs from the start of its phase, so a client trickling bytes does not extend it. A
/// request the decoder cannot read ends them all: *closing*, after its refusal, until the client closes or
/// ``lingerLimit`` passes (see ``refuseMalformed(_:)``).
final class ConnectionTimers {
    enum Phase: Equatable {
        case idle, header, body, answering, closing
    }

    /// How long a connection refused for malformed HTTP is still read (and what arrives dropped) before it is
    /// closed: a client still sending when the socket closes with unread bytes gets a reset, which may
    /// destroy the refusal before it reads it. nginx's `lingering_timeout` is the same 5 s.
    static let lingerLimit: Duration = .seconds(5)

    let timeouts: ConnectionTimeouts
    let tracker: ConnectionTracker
    let metrics: ServerMetrics
    /// The context of the handler nearest the socket: where a 408 is written.
    var context: ChannelHandlerContext?
    private var requestOpen = false
    private var headPending = false
    private var unanswered = 0
    private var answerStarted = false
    private(set) var phase = Phase.idle
    private var timer: Scheduled<Void>?

    init(timeouts: ConnectionTimeouts, tracker: ConnectionTracker, metrics: ServerMetrics) {
        self.timeouts = timeouts
        self.tracker = tracker
        self.metrics = metrics
    }

    /// Bytes arrived from the client (before decoding).
    func bytesArrived() {
        guard !requestOpen, !headPending else { return }
        headPending = true
        update()
    }

    /// A request's head was decoded.
    func headArrived() {
        headPending = false
        requestOpen = true
        update()
    }

    /// A request's end was decoded.
    func endArrived() {
        requestOpen = false
        unanswered += 1
        update()
    }

    /// An answer's head (`isEnd` false) or end was written.
    func answerWritten(isEnd: Bool) {
        answerStarted = !isEnd
        if isEnd { unanswered = max(0, unanswered - 1) }
        update()
    }

    func stop() {
        timer?.cancel()
        timer = nil
        context = nil
    }

    /// Whether the connection is closing after a refusal: what arrives is dropped.
    var isClosing: Bool { phase == .closing }

    /// Whether a request the decoder cannot read may be refused here: no request is being received (whose
    /// handler sees the error) and no answer is owed or under way (which the refusal would interleave with).
    var canRefuseMalformed: Bool { !requestOpen && unanswered == 0 && !answerStarted && phase != .closing }

    /// Refuses a request the HTTP decoder could not read: writes `refusal` (``writeRefusal(_:_:_:on:)``),
    /// closes the connection's output, then drops what arrives until the client closes its side (see
    /// ``RawBytesHandler``) or ``lingerLimit`` passes, and closes.
    func refuseMalformed(_ refusal: MalformedRequest) {
        guard let context else { return }
        phase = .closing
        timer?.cancel()
        tracker.setPhase(.idle, of: context.channel)
        metrics.connectionClosed(reason: "malformed")
        Self.writeRefusal(refusal.status, refusal.reason, refusal.message, on: context)
        let channel = context.channel
        let shutDown = context.eventLoop.makePromise(of: Void.self)
        shutDown.futureResult.whenFailure { _ in channel.close(promise: nil) }
        context.close(mode: .output, promise: shutDown)
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: Self.timeAmount(Self.lingerLimit)) {
            channel.close(promise: nil)
        }
    }

    /// Moves to the phase the counts say, restarting the timer when the phase changes.
    func update() {
        guard phase != .closing else { return }
        let next: Phase = requestOpen ? .body : headPending ? .header : unanswered > 0 ? .answering : .idle
        guard next != phase || timer == nil && next != .answering else { return }
        phase = next
        timer?.cancel()
        timer = nil
        if let channel = context?.channel {
            tracker.setPhase(next == .idle ? .idle : next == .answering ? .answering : .receiving, of: channel)
        }
        let limit: Duration
        switch next {
        case .idle: limit = timeouts.idle
        case .header: limit = timeouts.header
        case .body: limit = timeouts.body
        case .answering, .closing: return
        }
        guard let context else { return }
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: Self.timeAmount(limit)) { [self] in
            expired(next)
        }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The timer of `phase` ran out: close, after a 408 if a request was being received and no answer begun.
    private func expired(_ expired: Phase) {
        guard expired == phase, let context else { return }
        timer = nil
        switch expired {
        case .idle:
            metrics.connectionClosed(reason: "idle_timeout")
        case .header, .body:
            metrics.connectionClosed(reason: expired == .header ? "header_timeout" : "body_timeout")
            if !answerStarted && unanswered == 0 {
                let what = expired == .header ? "its head" : "its body"
                let limit = FeedServer.seconds(expired == .header ? timeouts.header : timeouts.body)
                Self.writeRefusal(408, "Request Timeout", "the request did not arrive in time: \(what) took longer than \(limit) s", on: context)
            }
        case .answering, .closing:
            return
        }
        context.close(promise: nil)
    }

    /// Writes a complete HTTP/1.1 answer with a JSON error body straight to the socket, asking to close.
    static func writeRefusal(_ status: Int, _ reason: String, _ message: String, on context: ChannelHandlerContext) {
        let body = JSONText.errorBody(message)
        let head = "HTTP/1.1 \(status) \(reason)\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n"
            + "content-length: \(body.utf8.count)\r\n\r\n"
        context.writeAndFlush(NIOAny(ByteBuffer(string: head + body)), promise: nil)
    }
}
