import ArgumentParser
import FeedServerCore
import Foundation
import Logging

/// `feed-server`: the Weft layout service. Reads its settings from flags, then the environment, then the
/// defaults, and serves until SIGTERM or SIGINT.
@main
struct FeedServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed-server",
        abstract: "Serve Weft layouts over HTTP: POST /v1/layout, GET /health, GET /metrics.",
        discussion: """
        Each setting may also come from the environment: \
        \(FeedServerConfiguration.environmentNames.map { "--\($0.flag) \($0.variable)" }.joined(separator: ", ")). \
        A flag wins over the environment. SIGTERM or SIGINT stops the server after the requests in flight (waiting at most the shutdown grace for requests still arriving).
        """
    )

    @Option(help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on (default 8080; 0 picks a free one).")
    var port: String?

    @Option(name: .customLong("max-body-bytes"), help: "The largest body accepted, in bytes (default 1048576).")
    var maxBodyBytes: String?

    @Option(name: .customLong("max-depth"), help: "The deepest element nesting accepted (default 64, at most 1000).")
    var maxDepth: String?

    @Option(name: .customLong("max-elements"), help: "The most elements in one request, all cells together (default 5000).")
    var maxElements: String?

    @Option(help: "The time limit of a request, in seconds (default 2).")
    var timeout: String?

    @Option(name: .customLong("cache-bytes"), help: "The bound on the cell cache, in bytes (default 67108864; 0: no cache).")
    var cacheBytes: String?

    @Option(name: .customLong("text-cache-bytes"), help: "The bound on each font set's cache of shaped text, in bytes (default 16777216; 0: none).")
    var textCacheBytes: String?

    @Option(name: .customLong("layout-threads"), help: "The number of layout threads (default: one per core).")
    var layoutThreads: String?

    @Option(name: .customLong("slow-job"), help: "Seconds of layout a request may take before the rest runs at idle priority (default 0.005).")
    var slowJob: String?

    @Option(name: .customLong("slow-body-bytes"), help: "The body size from which a request runs at idle priority (default 65536; 0: never).")
    var slowBodyBytes: String?

    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may sit idle between requests (default 30).")
    var idleTimeout: String?

    @Option(name: .customLong("header-timeout"), help: "Seconds a request's head may take, from its first byte (default 10).")
    var headerTimeout: String?

    @Option(name: .customLong("body-timeout"), help: "Seconds a request's body may take, after its head (default 30).")
    var bodyTimeout: String?

    @Option(name: .customLong("max-connections"), help: "The most connections at once (default 0: the open-file limit less 64).")
    var maxConnections: String?

    @Option(name: .customLong("shutdown-grace"), help: "Seconds a graceful shutdown waits for requests still arriving (default 10).")
    var shutdownGrace: String?

    @Option(name: .customLong("font-set"), help: ArgumentHelp("A font set requests may name with ?fonts=NAME: the standard fonts and those under DIR; repeatable.", valueName: "NAME=DIR"))
    var fontSets: [String] = []

    @Option(help: ArgumentHelp("The Redis server of the shared cell cache (default: none).", valueName: "HOST:PORT"))
    var redis: String?

    @Option(name: .customLong("redis-timeout"), help: "Seconds a Redis command may take before the server goes on without it (default 0.005).")
    var redisTimeout: String?

    @Option(name: .customLong("redis-connections"), help: "Connections to Redis, each pipelined (default 2).")
    var redisConnections: String?

    @Option(name: .customLong("redis-ttl"), help: "Seconds a shared cache entry lives (default 86400).")
    var redisTTL: String?

    @Option(name: .customLong("cache-version"), help: "The deployment's version in every shared cache key (default dev).")
    var cacheVersion: String?

    func run() async throws {
        var configuration: FeedServerConfiguration
        do {
            configuration = try FeedServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
            let flags: [(String, String?)] = [
                ("host", host), ("port", port), ("max-body-bytes", maxBodyBytes), ("max-depth", maxDepth),
                ("max-elements", maxElements), ("timeout", timeout), ("cache-bytes", cacheBytes), ("text-cache-bytes", textCacheBytes),
                ("layout-threads", layoutThreads), ("slow-job", slowJob), ("slow-body-bytes", slowBodyBytes),
                ("idle-timeout", idleTimeout),
                ("header-timeout", headerTimeout), ("body-timeout", bodyTimeout), ("max-connections", maxConnections),
                ("shutdown-grace", shutdownGrace), ("redis", redis), ("redis-timeout", redisTimeout),
                ("redis-connections", redisConnections), ("redis-ttl", redisTTL), ("cache-version", cacheVersion),
            ] + fontSets.map { ("font-set", $0) }
            for case (let flag, let text?) in flags {
                try configuration.set(flag, to: text, source: "--\(flag)")
            }
            let server = try FeedServer(configuration: configuration)
            try await server.run()
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
