import NIOCore

/// Commands written together and answered together: one entry of a connection's pipeline.
struct RedisBatch {
    var commands: [[[UInt8]]]
    var promise: EventLoopPromise<[RESPValue]>
}

/// Why a Redis command did not get its answer.
public enum RedisFailure: Error, Equatable, CustomStringConvertible {
    /// No answer within the command timeout.
    case timeout
    /// Not sent: the circuit is open after repeated failures (see ``RedisCircuit``).
    case circuitOpen
    /// The connection closed (or could not be made) before the answer came.
    case connection(String)
    /// The answer was not RESP2 (the connection was closed).
    case protocolError(String)

    public var description: String {
        switch self {
        case .timeout: return "no answer within the command timeout"
        case .circuitOpen: return "not asked: the circuit is open after repeated failures"
        case .connection(let reason): return "connection: \(reason)"
        case .protocolError(let reason): return "bad reply: \(reason)"
        }
    }
}

/// The channel handler of one Redis connection: writes batches of commands in RESP2, reads the replies and
/// answers each batch's promise once all its replies are in, in order (pipelining: several batches may be
/// in flight on the connection).
///
/// A batch whose answer is overdue by ``staleAfter`` when another is written means Redis has stopped
/// answering: every waiting batch is failed and the connection closed. A frame that is not RESP2, or a reply
/// nobody waits for, also fails them all and closes it. Threading: on its channel's event loop only.
final class RedisHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RedisBatch
    typealias OutboundOut = ByteBuffer

    private struct Waiting {
        var count: Int
        var replies: [RESPValue]
        var promise: EventLoopPromise<[RESPValue]>
        var sent: NIODeadline
    }

    private let parser: RESPParser
    private let staleAfter: TimeAmount
    private var received: ByteBuffer?
    private var waiting = CircularBuffer<Waiting>()

    init(parser: RESPParser = RESPParser(), staleAfter: TimeAmount) {
        self.parser = parser
        self.staleAfter = staleAfter
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let batch = unwrapOutboundIn(data)
        let now = NIODeadline.now()
        if let oldest = waiting.first, now - oldest.sent > staleAfter {
            batch.promise.fail(RedisFailure.timeout)
            promise?.fail(RedisFailure.timeout)
            fail(context, RedisFailure.connection("no reply for \(staleAfter.nanoseconds / 1_000_000) ms"))
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 128)
        for command in batch.commands { RESPCommand.write(command, to: &buffer) }
        waiting.append(Waiting(count: batch.commands.count, replies: [], promise: batch.promise, sent: now))
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        var buffer: ByteBuffer
        if var held = received.take() {
            held.writeBuffer(&bytes)
            buffer = held
        } else {
            buffer = bytes
        }
        do throws(RESPError) {
            while let value = try parser.next(&buffer) {
                guard var first = waiting.popFirst() else {
                    throw RESPError("a reply that no command waits for")
                }
                first.replies.append(value)
                if first.replies.count == first.count {
                    first.promise.succeed(first.replies)
                } else {
                    waiting.prepend(first)
                }
            }
        } catch {
            fail(context, RedisFailure.protocolError(error.description))
            return
        }
        if buffer.readableBytes > 0 {
            buffer.discardReadBytes()
            received = buffer
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failWaiting(RedisFailure.connection("closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, RedisFailure.connection("\(error)"))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failWaiting(RedisFailure.connection("closed"))
    }

    private func fail(_ context: ChannelHandlerContext, _ failure: RedisFailure) {
        failWaiting(failure)
        context.close(promise: nil)
    }

    private func failWaiting(_ failure: RedisFailure) {
        while let entry = waiting.popFirst() { entry.promise.fail(failure) }
        received = nil
    }
}
