import FeedServerCore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The Redis client against a small RESP2 server of the test's own (GET, SET, PING over a dictionary, in
/// order, each reply delayed by the server's current delay): pipelining, the order of replies, and a reply
/// that comes after its batch timed out.
@Suite struct RedisClientTests {
    /// A loopback server speaking enough RESP2 for the client.
    final class FakeRedis: Sendable {
        let channel: any Channel
        let delay = NIOLockedValueBox(TimeAmount.zero)
        let store = NIOLockedValueBox([String: [UInt8]]())
        let commands = NIOLockedValueBox(0)

        init() async throws {
            let (delay, store, commands) = (delay, store, commands)
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(Handler(delay: delay, store: store, commands: commands))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        }

        var address: RedisAddress { RedisAddress(host: "127.0.0.1", port: channel.localAddress?.port ?? 0) }

        final class Handler: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            let delay: NIOLockedValueBox<TimeAmount>
            let store: NIOLockedValueBox<[String: [UInt8]]>
            let commands: NIOLockedValueBox<Int>
            var received = ByteBuffer()
            /// When the last reply is due: replies keep their order whatever the delay.
            var lastDue = NIODeadline.uptimeNanoseconds(0)

            init(delay: NIOLockedValueBox<TimeAmount>, store: NIOLockedValueBox<[String: [UInt8]]>, commands: NIOLockedValueBox<Int>) {
                (self.delay, self.store, self.commands) = (delay, store, commands)
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                var bytes = unwrapInboundIn(data)
                received.writeBuffer(&bytes)
                while case .array(let items?)? = try? RESPParser().next(&received) {
                    let arguments = items.map { item -> [UInt8] in
                        if case .bulk(let bytes?) = item { return bytes }
                        return []
                    }
                    commands.withLockedValue { $0 += 1 }
                    let name = String(decoding: arguments.first ?? [], as: UTF8.self)
                    let key = arguments.count > 1 ? String(decoding: arguments[1], as: UTF8.self) : ""
                    var reply = ByteBuffer()
                    switch name {
                    case "PING": reply.writeString("+PONG\r\n")
                    case "SET":
                        store.withLockedValue { $0[key] = arguments.count > 2 ? arguments[2] : [] }
                        reply.writeString("+OK\r\n")
                    case "GET":
                        if let value = store.withLockedValue({ $0[key] }) {
                            reply.writeString("$\(value.count)\r\n")
                            reply.writeBytes(value)
                            reply.writeString("\r\n")
                        } else {
                            reply.writeString("$-1\r\n")
                        }
                    default: reply.writeString("-ERR unknown command\r\n")
                    }
                    let due = max(NIODeadline.now() + delay.withLockedValue { $0 }, lastDue)
                    lastDue = due
                    let (channel, answer) = (context.channel, reply)
                    context.eventLoop.scheduleTask(deadline: due) { channel.writeAndFlush(answer, promise: nil) }
                }
            }
        }
    }

    func client(_ server: FakeRedis, timeout: Duration = .seconds(5), connections: Int = 2) -> RedisClient {
        var settings = RedisClient.Settings(address: server.address)
        settings.commandTimeout = timeout
        settings.connections = connections
        return RedisClient(settings)
    }

    static func get(_ key: String) -> [[UInt8]] { [Array("GET".utf8), Array(key.utf8)] }
    static func set(_ key: String, _ value: String) -> [[UInt8]] { [Array("SET".utf8), Array(key.utf8), Array(value.utf8)] }

    @Test func aBatchIsAnsweredInOrder() async throws {
        let server = try await FakeRedis()
        let redis = client(server)
        let replies = try await redis.send([Self.set("a", "1"), Self.get("a"), Self.get("missing"), [Array("PING".utf8)]]).get()
        #expect(replies == [.simpleString("OK"), .bulk(Array("1".utf8)), .bulk(nil), .simpleString("PONG")])
        redis.close()
        try await server.channel.close()
    }

    @Test func manyBatchesInFlightEachGetTheirOwnReplies() async throws {
        let server = try await FakeRedis()
        server.store.withLockedValue { store in for i in 0..<200 { store["k\(i)"] = Array("v\(i)".utf8) } }
        let redis = client(server, connections: 3)
        try await withThrowingTaskGroup(of: (Int, [RESPValue]).self) { group in
            for i in 0..<200 {
                group.addTask { (i, try await redis.send([Self.get("k\(i)"), Self.get("k\((i + 1) % 200)")]).get()) }
            }
            for try await (i, replies) in group {
                #expect(replies == [.bulk(Array("v\(i)".utf8)), .bulk(Array("v\((i + 1) % 200)".utf8))], "batch \(i)")
            }
        }
        #expect(server.commands.withLockedValue { $0 } == 400)
        redis.close()
        try await server.channel.close()
    }

    @Test func aLateReplyIsDroppedAndTheNextBatchGetsItsOwn() async throws {
        let server = try await FakeRedis()
        server.store.withLockedValue { $0 = ["a": Array("first".utf8), "b": Array("second".utf8)] }
        let redis = client(server, timeout: .milliseconds(150), connections: 1)
        // Connected first (connecting counts against the time limit, which a loaded machine may need twice).
        var connected = false
        for _ in 0..<20 where !connected { connected = (try? await redis.ping().get()) != nil }
        #expect(connected)
        server.delay.withLockedValue { $0 = .milliseconds(500) }
        await #expect(throws: RedisFailure.timeout) { _ = try await redis.send([Self.get("a")]).get() }
        server.delay.withLockedValue { $0 = .zero }
        try await Task.sleep(for: .milliseconds(700))  // the late reply to GET a has come and gone
        // Whatever comes back is this batch's own reply (on a loaded machine a try may time out too: retried).
        var answer: [RESPValue]?
        for _ in 0..<40 where answer == nil {
            answer = try? await redis.send([Self.get("b")]).get()
            if answer == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(answer == [.bulk(Array("second".utf8))])
        redis.close()
        try await server.channel.close()
    }
}
