import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Hummingbird's HTTP/1 child channel with the feed server's guards in front: the connection limit
/// (``ConnectionTracker``), the idle, header and body timeouts (``ConnectionTimers``), and word to a request
/// in flight when its client leaves.
///
/// Each connection gets a ``RawBytesHandler`` at the front of its pipeline, which sees bytes before the HTTP
/// decoder, and a ``RequestPartsHandler`` after the decoder, which sees request and answer parts and the
/// decoder's errors (a request it cannot read is refused there, with a JSON error body); the two share the
/// connection's ``ConnectionTimers``. Everything else is `HTTP1Channel`'s.
struct GuardedHTTPChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let timeouts: ConnectionTimeouts
    let tracker: ConnectionTracker
    let metrics: ServerMetrics

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let timers: NIOLoopBound<ConnectionTimers>
        do {
            timers = NIOLoopBound(ConnectionTimers(timeouts: timeouts, tracker: tracker, metrics: metrics),
                                  eventLoop: channel.eventLoop)
            try channel.pipeline.syncOperations.addHandler(RawBytesHandler(timers: timers.value))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let limits = HTTP1Channel.Configuration().httpDecoder
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestPartsHandler(timers: timers.value, limits: limits)])
        return HTTP1Channel(responder: responder, configuration: configuration).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

/// The first handler of a connection: admits it (or refuses it) when it becomes active, notes bytes arriving
/// for the header timeout (and drops them once the connection is closing after a refusal), and tells the
/// tracker when the client closes its side or the connection ends.
final class RawBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timers: ConnectionTimers
    private var admitted = false

    init(timers: ConnectionTimers) {
        self.timers = timers
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        switch timers.tracker.open(context.channel) {
        case .admitted:
            break
        case .admittedInPlaceOf(let idle):
            timers.metrics.connectionClosed(reason: "evicted")
            idle.close(promise: nil)
        case .refused:
            timers.metrics.connectionClosed(reason: "refused")
            ConnectionTimers.writeRefusal(503, "Service Unavailable", "too many connections; try again later", on: context)
            context.close(promise: nil)
            return
        }
        timers.context = context
        timers.update()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !timers.isClosing else { return }
        timers.bytesArrived()
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            guard !timers.isClosing else {
                context.close(promise: nil)
                return
            }
            timers.tracker.inputClosed(context.channel)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timers.stop()
        if admitted { timers.tracker.closed(context.channel) }
        context.fireChannelInactive()
    }
}

/// The handler after the HTTP decoder: tells the connection's timers when a request's head and end arrive and
/// when an answer starts and ends, and refuses a request the decoder cannot read (``MalformedRequest``)
/// before its head, where Hummingbird would answer 400 with an empty body.
final class RequestPartsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timers: ConnectionTimers
    /// The HTTP decoder's limits, for the message of a 431.
    private let limits: HTTP1Channel.Configuration.DecoderConfiguration

    init(timers: ConnectionTimers, limits: HTTP1Channel.Configuration.DecoderConfiguration) {
        self.timers = timers
        self.limits = limits
    }

    /// A decoder error before a request's head is refused here, and not passed on (the connection closes
    /// after the refusal); any other error, or one while a request is being received or answered, goes on
    /// to Hummingbird's handling.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError, timers.canRefuseMalformed {
            timers.refuseMalformed(MalformedRequest(error, limits: limits))
            return
        }
        if timers.isClosing, error is ByteToMessageDecoderError { return }
        context.fireErrorCaught(error)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: timers.headArrived()
        case .body: break
        case .end: timers.endArrived()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: timers.answerWritten(isEnd: false)
        case .body: break
        case .end: timers.answerWritten(isEnd: true)
        }
        context.write(data, promise: promise)
    }
}
