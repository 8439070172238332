import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A small Redis client (RESP2 over swift-nio): batches of commands pipelined on a few pooled connections,
/// with a timeout per batch and a circuit that stops asking a Redis that keeps failing.
///
/// Connections are made when first needed, and again after one closes; a batch goes to the next connection in
/// turn. A batch not answered within ``Settings/commandTimeout`` fails with ``RedisFailure/timeout`` (its
/// reply, if it comes later, is read and dropped, so the pipeline stays in order). Failures feed a
/// ``RedisCircuit``: after a few in a row it opens and batches fail at once with
/// ``RedisFailure/circuitOpen``, then lets one through after a backoff that doubles while Redis stays down.
/// That backoff is also how often a dead Redis is reconnected to.
///
/// Threading: every method MAY be called from any thread; futures complete on the connections' event loops.
/// No lock is held while calling NIO or completing a future.
public final class RedisClient: Sendable {
    /// Where and how to connect.
    public struct Settings: Sendable {
        public var address: RedisAddress
        public var connections: Int = 2
        /// The longest a batch may take, from the call to its answer (connecting included).
        public var commandTimeout: Duration = .milliseconds(5)
        /// The longest a connection may take to open.
        public var connectTimeout: Duration = .milliseconds(250)
        /// The circuit's settings.
        public var circuit = RedisCircuit.Settings()

        public init(address: RedisAddress) {
            self.address = address
        }
    }

    private enum Slot {
        case idle
        case connecting(EventLoopFuture<any Channel>)
        case ready(any Channel)
    }

    public let settings: Settings
    private let group: any EventLoopGroup
    private let slots: [NIOLockedValueBox<Slot>]
    private let turn = NIOLockedValueBox(0)
    public let circuit: RedisCircuit

    public init(_ settings: Settings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.group = group
        slots = (0..<max(1, settings.connections)).map { _ in NIOLockedValueBox(Slot.idle) }
        circuit = RedisCircuit(settings.circuit)
    }

    /// Sends `commands` (each its arguments, such as `GET key`) together and returns their replies in order;
    /// fails with a ``RedisFailure``. A Redis error reply (`-ERR ...`) is a reply, not a failure.
    public func send(_ commands: [[[UInt8]]]) -> EventLoopFuture<[RESPValue]> {
        let loop = group.any()
        guard circuit.allows() else { return loop.makeFailedFuture(RedisFailure.circuitOpen) }
        let result = loop.makePromise(of: [RESPValue].self)
        let timer = loop.scheduleTask(in: TimeAmount(settings.commandTimeout)) { result.fail(RedisFailure.timeout) }
        channel().whenComplete { connected in
            switch connected {
            case .success(let channel):
                let answer = channel.eventLoop.makePromise(of: [RESPValue].self)
                channel.writeAndFlush(RedisBatch(commands: commands, promise: answer), promise: nil)
                answer.futureResult.cascade(to: result)
            case .failure(let error):
                result.fail(error as? RedisFailure ?? RedisFailure.connection("\(error)"))
            }
        }
        let circuit = circuit
        return result.futureResult.always { outcome in
            timer.cancel()
            switch outcome {
            case .success: circuit.record(success: true)
            case .failure: circuit.record(success: false)
            }
        }
    }

    /// `PING`: succeeds with `PONG`.
    public func ping() -> EventLoopFuture<[RESPValue]> {
        send([[Array("PING".utf8)]])
    }

    /// Closes every connection (new batches open them again).
    public func close() {
        for slot in slots {
            let channel = slot.withLockedValue { state -> (any Channel)? in
                defer { state = .idle }
                if case .ready(let channel) = state { return channel }
                return nil
            }
            channel?.close(promise: nil)
        }
    }

    /// The next connection in turn: open, being opened, or opened now.
    private func channel() -> EventLoopFuture<any Channel> {
        let index = turn.withLockedValue { turn -> Int in
            turn = (turn + 1) % slots.count
            return turn
        }
        let slot = slots[index]
        let (existing, promise) = slot.withLockedValue { state -> (EventLoopFuture<any Channel>?, EventLoopPromise<any Channel>?) in
            switch state {
            case .ready(let channel) where channel.isActive:
                return (channel.eventLoop.makeSucceededFuture(channel), nil)
            case .connecting(let future):
                return (future, nil)
            default:
                let promise = group.any().makePromise(of: (any Channel).self)
                state = .connecting(promise.futureResult)
                return (nil, promise)
            }
        }
        if let existing { return existing }
        let address = settings.address
        guard let promise else { return group.any().makeFailedFuture(RedisFailure.connection("no slot")) }
        connect().whenComplete { connected in
            switch connected {
            case .success(let channel):
                slot.withLockedValue { $0 = .ready(channel) }
                channel.closeFuture.whenComplete { _ in
                    slot.withLockedValue { state in
                        if case .ready(let current) = state, current === channel { state = .idle }
                    }
                }
                promise.succeed(channel)
            case .failure(let error):
                slot.withLockedValue { $0 = .idle }
                promise.fail(RedisFailure.connection("\(address): \(error)"))
            }
        }
        return promise.futureResult
    }

    private func connect() -> EventLoopFuture<any Channel> {
        // Redis has stopped answering when a batch waits a second, or twice the time limit if that is longer.
        let staleAfter = max(TimeAmount.seconds(1), TimeAmount(settings.commandTimeout * 2))
        return ClientBootstrap(group: group)
            .connectTimeout(TimeAmount(settings.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RedisHandler(staleAfter: staleAfter))
                }
            }
            .connect(host: settings.address.host, port: settings.address.port)
    }
}

extension TimeAmount {
    /// A Swift duration as an NIO time amount (nanoseconds).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
