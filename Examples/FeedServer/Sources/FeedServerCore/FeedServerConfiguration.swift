import Foundation
import WeftFormat
import WeftLayout

/// Everything the feed server can be told at start: where to listen, the limits on a request, the cache size
/// and the layout threads.
///
/// Every value can come from a flag of `feed-server` or from an environment variable (``environmentNames``);
/// a flag wins over the environment, which wins over the default. The defaults suit a phone-width feed: a
/// request of up to 1 MB, 64 element levels and 5,000 elements, answered within 2 s.
public struct FeedServerConfiguration: Sendable, Equatable {
    /// The address to listen on (default `127.0.0.1`: only this machine).
    public var host: String = "127.0.0.1"
    /// The port to listen on (default 8080; 0 picks a free one).
    public var port: Int = 8080
    /// The largest request body accepted, in bytes; larger ones get 413 (default 1 MiB).
    public var maxBodyBytes: Int = 1 << 20
    /// The deepest element nesting accepted in one document or cell (the root is depth 1); deeper gets 422.
    public var maxDepth: Int = 64
    /// The most elements accepted in one request, counted across all the cells of a page; more gets 422.
    public var maxElements: Int = 5_000
    /// How long a request may take from the moment its body is read until its answer is ready (waiting for a
    /// layout thread included); longer gets 503.
    public var timeout: Duration = .seconds(2)
    /// The bound on the cell cache, in bytes of keys and values (default 64 MiB; 0 turns the cache off).
    public var cacheBytes: Int = 64 << 20
    /// The bound on each font set's cache of shaped text, in bytes (default 16 MiB; 0 turns it off). The
    /// server's memory beyond its start is about the two caches together (see the README).
    public var textCacheBytes: Int = 16 << 20
    /// The number of layout threads (default: one per core).
    public var layoutThreads: Int = FeedServerConfiguration.coreCount
    /// How much layout time a request may take before the rest of it runs at idle priority, and how long one
    /// of its jobs may run before it is handed off to an idle-priority thread (default 5 ms; see
    /// ``LayoutThreads``).
    public var slowJob: Duration = .milliseconds(5)
    /// The body size from which a request runs at idle priority from the start (default 64 KiB: a page of 20
    /// photo cells is about 25 KB; 0: never).
    public var slowBodyBytes: Int = 64 << 10
    /// How long a connection may sit idle between requests (default 30 s); then it is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// How long a request's head may take to arrive, from its first byte (default 10 s); then 408 and closed.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a request's body may take to arrive, from the end of its head (default 30 s: 1 MiB at 35 KB/s);
    /// then 408 and closed.
    public var bodyTimeout: Duration = .seconds(30)
    /// The most connections served at once (0, the default: as many as the open-file limit allows, less
    /// ``descriptorReserve``); see ``ConnectionTracker`` for what happens beyond.
    public var maxConnections: Int = 0
    /// How long a graceful shutdown waits for requests still arriving before it closes their connections
    /// (default 10 s); requests received in full are still answered.
    public var shutdownGrace: Duration = .seconds(10)
    /// The font sets besides the standard one, by name: each directory's fonts beside the standard ones.
    public var fontSetDirectories: [String: String] = [:]
    /// The Redis server of the shared (second-level) cell cache, or nil (the default) for none.
    public var redis: RedisAddress?
    /// How long a Redis command may take before the server goes on without it (default 5 ms).
    public var redisTimeout: Duration = .milliseconds(5)
    /// The connections to Redis, each carrying pipelined commands (default 2).
    public var redisConnections: Int = 2
    /// How long an entry lives in Redis, in seconds (default a day; Redis's own LRU may drop it earlier).
    public var redisTTL: Int = 86_400
    /// The deployment's cache version, part of every shared cache key (default `dev`): set it to something
    /// that changes with each build deployed (`Scripts/fleet.sh` uses the binary's SHA-256), so that a deploy
    /// never reads layouts another build wrote.
    public var cacheVersion: String = "dev"

    public init() {}

    /// The connection timeouts.
    public var timeouts: ConnectionTimeouts {
        ConnectionTimeouts(idle: idleTimeout, header: headerTimeout, body: bodyTimeout)
    }

    /// File descriptors kept out of the connection limit: the server's own (about 20: event loops, the
    /// listening socket, standard streams) and room for connections being refused or replaced.
    public static let descriptorReserve = 64

    /// The connection limit under an open-file limit of `openFiles`: ``maxConnections`` if set and lower,
    /// else the limit less ``descriptorReserve`` (at least 1).
    public func connectionLimit(openFiles: Int) -> Int {
        let room = max(1, openFiles - Self.descriptorReserve)
        return maxConnections > 0 ? min(maxConnections, room) : room
    }

    /// The deepest nesting a server may be configured for: the decoder's own default limit.
    public static let deepestAllowed = LayoutDecoder.Limits().maxDepth

    /// The stack each layout thread gets: room for ``maxDepth`` element levels with a wide margin.
    ///
    /// Decoding and layout recurse once per element level; ``LayoutDecoder/recommendedStackSize`` is what
    /// 1,000 levels need with a margin (debug builds use up to about 16 KB a level). The stack is scaled to
    /// the configured depth, and never below 16 MB.
    public var layoutStackSize: Int {
        let scaled = LayoutDecoder.recommendedStackSize * max(maxDepth, 1) / Self.deepestAllowed
        return max(16 << 20, scaled)
    }

    /// The problem with these values, naming the setting, or nil when they are all usable.
    public var problem: String? {
        if host.isEmpty { return "host: expected an address, got an empty string" }
        if !(0...65_535).contains(port) { return "port: expected 0 to 65535, got \(port)" }
        if maxBodyBytes < 1 { return "max-body-bytes: expected a number >= 1, got \(maxBodyBytes)" }
        if !(1...Self.deepestAllowed).contains(maxDepth) {
            return "max-depth: expected 1 to \(Self.deepestAllowed), got \(maxDepth)"
        }
        if maxElements < 1 { return "max-elements: expected a number >= 1, got \(maxElements)" }
        if timeout <= .zero { return "timeout: expected a time > 0, got \(timeout)" }
        if cacheBytes < 0 { return "cache-bytes: expected a number >= 0, got \(cacheBytes)" }
        if textCacheBytes < 0 { return "text-cache-bytes: expected a number >= 0, got \(textCacheBytes)" }
        if !(1...256).contains(layoutThreads) { return "layout-threads: expected 1 to 256, got \(layoutThreads)" }
        for (name, value) in [("slow-job", slowJob), ("idle-timeout", idleTimeout), ("header-timeout", headerTimeout),
                              ("body-timeout", bodyTimeout)] where value <= .zero {
            return "\(name): expected a time > 0, got \(value)"
        }
        if shutdownGrace < .zero { return "shutdown-grace: expected a time >= 0, got \(shutdownGrace)" }
        if maxConnections < 0 { return "max-connections: expected a number >= 0, got \(maxConnections)" }
        if slowBodyBytes < 0 { return "slow-body-bytes: expected a number >= 0, got \(slowBodyBytes)" }
        return fleetProblem
    }

    /// The environment variable for each setting, by its flag name.
    public static let environmentNames: [(flag: String, variable: String)] = [
        ("host", "WEFT_HOST"),
        ("port", "WEFT_PORT"),
        ("max-body-bytes", "WEFT_MAX_BODY_BYTES"),
        ("max-depth", "WEFT_MAX_DEPTH"),
        ("max-elements", "WEFT_MAX_ELEMENTS"),
        ("timeout", "WEFT_TIMEOUT"),
        ("cache-bytes", "WEFT_CACHE_BYTES"),
        ("text-cache-bytes", "WEFT_TEXT_CACHE_BYTES"),
        ("layout-threads", "WEFT_LAYOUT_THREADS"),
        ("slow-job", "WEFT_SLOW_JOB"),
        ("slow-body-bytes", "WEFT_SLOW_BODY_BYTES"),
        ("idle-timeout", "WEFT_IDLE_TIMEOUT"),
        ("header-timeout", "WEFT_HEADER_TIMEOUT"),
        ("body-timeout", "WEFT_BODY_TIMEOUT"),
        ("max-connections", "WEFT_MAX_CONNECTIONS"),
        ("shutdown-grace", "WEFT_SHUTDOWN_GRACE"),
        ("font-set", "WEFT_FONT_SET"),
        ("redis", "WEFT_REDIS"),
        ("redis-timeout", "WEFT_REDIS_TIMEOUT"),
        ("redis-connections", "WEFT_REDIS_CONNECTIONS"),
        ("redis-ttl", "WEFT_REDIS_TTL"),
        ("cache-version", "WEFT_CACHE_VERSION"),
    ]

    /// Sets the value named by `flag` from its text, as given on the command line or in the environment.
    ///
    /// Times (`timeout`, `slow-job`, the connection timeouts, `shutdown-grace`) are in seconds (`2`, `0.5`;
    /// the grace may be 0); the others are whole numbers, except `host`. Throws a ``ConfigurationError`` naming
    /// `source` (such as `--port` or `WEFT_PORT`) for text that does not fit.
    public mutating func set(_ flag: String, to text: String, source: String) throws(ConfigurationError) {
        func whole() throws(ConfigurationError) -> Int {
            guard let value = Int(text) else {
                throw ConfigurationError(description: "\(source): expected a whole number, got \"\(text)\"")
            }
            return value
        }
        func time(zero: Bool = false) throws(ConfigurationError) -> Duration {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0 || zero && seconds == 0, seconds < 86_400 else {
                let bound = zero ? ">= 0" : "> 0"
                throw ConfigurationError(description: "\(source): expected a number of seconds \(bound), got \"\(text)\"")
            }
            return .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        switch flag {
        case "host": host = text
        case "port": port = try whole()
        case "max-body-bytes": maxBodyBytes = try whole()
        case "max-depth": maxDepth = try whole()
        case "max-elements": maxElements = try whole()
        case "cache-bytes": cacheBytes = try whole()
        case "text-cache-bytes": textCacheBytes = try whole()
        case "layout-threads": layoutThreads = try whole()
        case "max-connections": maxConnections = try whole()
        case "slow-body-bytes": slowBodyBytes = try whole()
        case "timeout": timeout = try time()
        case "slow-job": slowJob = try time()
        case "idle-timeout": idleTimeout = try time()
        case "header-timeout": headerTimeout = try time()
        case "body-timeout": bodyTimeout = try time()
        case "shutdown-grace": shutdownGrace = try time(zero: true)
        case "redis-timeout": redisTimeout = try time()
        case "redis-connections": redisConnections = try whole()
        case "redis-ttl": redisTTL = try whole()
        default:
            try setFleet(flag, to: text, source: source)
        }
    }

    /// The configuration from the environment variables in ``environmentNames`` over the defaults.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> Self {
        var configuration = Self()
        for (flag, variable) in environmentNames {
            if let text = environment[variable] { try configuration.set(flag, to: text, source: variable) }
        }
        return configuration
    }

    /// The number of cores this process may use.
    public static var coreCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// A setting that could not be read: names the flag or variable and says what was expected.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}
