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
    /// The number of layout threads (default: one per core).
    public var layoutThreads: Int = FeedServerConfiguration.coreCount

    public init() {}

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
        if !(1...256).contains(layoutThreads) { return "layout-threads: expected 1 to 256, got \(layoutThreads)" }
        return nil
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
        ("layout-threads", "WEFT_LAYOUT_THREADS"),
    ]

    /// Sets the value named by `flag` from its text, as given on the command line or in the environment.
    ///
    /// `timeout` is in seconds (`2`, `0.5`); the others are whole numbers, except `host`. Throws a
    /// ``ConfigurationError`` naming `source` (such as `--port` or `WEFT_PORT`) for text that does not fit.
    public mutating func set(_ flag: String, to text: String, source: String) throws(ConfigurationError) {
        func whole() throws(ConfigurationError) -> Int {
            guard let value = Int(text) else {
                throw ConfigurationError(description: "\(source): expected a whole number, got \"\(text)\"")
            }
            return value
        }
        switch flag {
        case "host": host = text
        case "port": port = try whole()
        case "max-body-bytes": maxBodyBytes = try whole()
        case "max-depth": maxDepth = try whole()
        case "max-elements": maxElements = try whole()
        case "cache-bytes": cacheBytes = try whole()
        case "layout-threads": layoutThreads = try whole()
        case "timeout":
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds < 86_400 else {
                throw ConfigurationError(description: "\(source): expected a number of seconds > 0, got \"\(text)\"")
            }
            timeout = .nanoseconds(Int64((seconds * 1e9).rounded()))
        default:
            throw ConfigurationError(description: "\(source): unknown setting")
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
