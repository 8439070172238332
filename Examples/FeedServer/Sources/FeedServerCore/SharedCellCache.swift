import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The second-level cell cache, shared by every instance of a fleet: Redis, through ``RedisClient``.
///
/// - Read-through: the cells the in-process cache misses are asked for together (one pipelined batch of
///   `GET`s); a usable entry is a hit, and goes into the in-process cache too.
/// - Write-behind: a cell laid out is written (`SET key entry EX ttl`) without waiting for the answer, after
///   the request has its output: the answer is never delayed by Redis.
/// - Entries are ``CellEntry``s, untrusted input checked on read (versions, length, checksum, key, element
///   count, output); an unusable one is counted (`weft_cache_l2_corrupt_total{reason}`), logged at most once
///   per ``logInterval``, and read as a miss, so the cell is laid out again and its entry rewritten.
/// - Keys are ``namespace`` (the entry format's and the engine's versions, and the deployment's cache
///   version) followed by the FNV-1a 64 hash of the cell's key text: a deploy with another version never
///   reads the old layouts, which Redis's own LRU (`maxmemory-policy allkeys-lru`) drops in time.
/// - Redis down, slow or refusing: a lookup answers "all missed" within the command timeout (at once while
///   the circuit is open), writes are dropped; each is counted (`weft_cache_l2_failures_total{op, kind}`) and
///   logged at most once per ``logInterval``. A client never sees an error for it.
///
/// Threading: every method MAY be called from any thread; callbacks run on an NIO event loop, with no lock held.
public final class SharedCellCache: Sendable {
    public let client: RedisClient
    /// The prefix of every key: `weft:cell:<format version>:<engine version>:<cache version>:`.
    public let namespace: String
    public let ttlSeconds: Int
    private let metrics: FleetMetrics
    private let log: RateLimitedLog

    /// How often a kind of problem is logged at most.
    public static let logInterval: Duration = .seconds(10)

    public init(client: RedisClient, cacheVersion: String, ttlSeconds: Int, metrics: FleetMetrics, logger: Logger) {
        self.client = client
        namespace = "weft:cell:\(CellEntry.formatVersion):\(CellEntry.engineVersion):\(cacheVersion):"
        self.ttlSeconds = ttlSeconds
        self.metrics = metrics
        log = RateLimitedLog(logger: logger, interval: Self.logInterval)
    }

    /// The Redis key of a cell.
    public func redisKey(_ key: CellKey) -> String {
        var hash = FNV1a64()
        hash.add(key.storageText.utf8)
        return namespace + hash.hex
    }

    /// Looks `keys` up together and calls `done` with a cell (or nil) for each, in order; never fails. `done`
    /// runs on an event loop (or on this thread, when the circuit is open).
    public func lookup(_ keys: [CellKey], done: @escaping @Sendable ([CachedCell?]) -> Void) {
        let commands = keys.map { [Array("GET".utf8), Array(redisKey($0).utf8)] }
        let start = ContinuousClock.now
        client.send(commands).whenComplete { [self] result in
            switch result {
            case .success(let replies):
                metrics.redisDuration(op: "get", ContinuousClock.now - start)
                done(zip(keys, replies).map { key, reply in cell(from: reply, for: key) })
            case .failure(let error):
                failed(op: "get", error)
                done(Array(repeating: nil, count: keys.count))
            }
        }
    }

    /// Writes `cell` for `key` in the background; failures are counted and logged, never reported.
    public func store(_ cell: CachedCell, for key: CellKey) {
        let entry = CellEntry.encode(key: key.storageText, cell)
        let command = [Array("SET".utf8), Array(redisKey(key).utf8), entry, Array("EX".utf8), Array(String(ttlSeconds).utf8)]
        let start = ContinuousClock.now
        client.send([command]).whenComplete { [self] result in
            switch result {
            case .success(let replies):
                metrics.redisDuration(op: "set", ContinuousClock.now - start)
                if case .error(let message)? = replies.first {
                    failed(op: "set", RedisFailure.protocolError(message), kind: "error")
                } else {
                    metrics.l2Writes.increment()
                }
            case .failure(let error):
                failed(op: "set", error)
            }
        }
    }

    private func cell(from reply: RESPValue, for key: CellKey) -> CachedCell? {
        switch reply {
        case .bulk(let bytes?):
            switch CellEntry.decode(bytes, key: key.storageText) {
            case .success(let cell):
                metrics.l2Hits.increment()
                return cell
            case .failure(let problem):
                metrics.l2Corrupt(problem)
                metrics.l2Misses.increment()
                log.warning("corrupt-\(problem.rawValue)", "shared cache: an entry not used (\(problem.rawValue)); the cell is laid out again")
                return nil
            }
        case .error(let message):
            failed(op: "get", RedisFailure.protocolError(message), kind: "error")
            metrics.l2Misses.increment()
            return nil
        default:
            metrics.l2Misses.increment()
            return nil
        }
    }

    private func failed(op: String, _ error: any Error, kind: String? = nil) {
        let failure = error as? RedisFailure
        let name = kind ?? {
            switch failure {
            case .timeout?: return "timeout"
            case .circuitOpen?: return "circuit_open"
            case .protocolError?: return "protocol"
            default: return "connection"
            }
        }()
        metrics.l2Failure(op: op, kind: name)
        log.warning("\(op)-\(name)", "shared cache (Redis \(client.settings.address)): \(op) failed: \(failure?.description ?? "\(error)"); serving without it")
    }
}

/// Log lines of a kind written at most once per interval, each saying how many of its kind were held back.
///
/// Threading: MAY be called from any thread; the lock is held only to read and update the times, never while
/// logging.
final class RateLimitedLog: Sendable {
    private let logger: Logger
    private let interval: Duration
    private let last = NIOLockedValueBox<[String: (at: ContinuousClock.Instant, held: Int)]>([:])

    init(logger: Logger, interval: Duration) {
        self.logger = logger
        self.interval = interval
    }

    /// Logs `message` as a warning unless a line of `kind` was logged less than the interval ago.
    func warning(_ kind: String, _ message: @autoclosure () -> String) {
        let now = ContinuousClock.now
        let held = last.withLockedValue { last -> Int? in
            if let previous = last[kind], now - previous.at < interval {
                last[kind] = (previous.at, previous.held + 1)
                return nil
            }
            let held = last[kind]?.held ?? 0
            last[kind] = (now, 0)
            return held
        }
        guard let held else { return }
        logger.warning("\(message())\(held > 0 ? " (\(held) more like it since the last such line)" : "")")
    }
}
