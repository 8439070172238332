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
        A flag wins over the environment. SIGTERM or SIGINT stops the server after the requests in flight.
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

    @Option(name: .customLong("layout-threads"), help: "The number of layout threads (default: one per core).")
    var layoutThreads: String?

    func run() async throws {
        var configuration: FeedServerConfiguration
        do {
            configuration = try FeedServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
            let flags: [(String, String?)] = [
                ("host", host), ("port", port), ("max-body-bytes", maxBodyBytes), ("max-depth", maxDepth),
                ("max-elements", maxElements), ("timeout", timeout), ("cache-bytes", cacheBytes),
                ("layout-threads", layoutThreads),
            ]
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
