import CoreMetrics
import Prometheus

/// The metrics of the shared cache and of layout time, in the server's own registry (see ``ServerMetrics``):
///
/// - `weft_cache_l2_hits_total`, `weft_cache_l2_misses_total`: lookups in Redis after the in-process cache
///   (level 1, `weft_cache_hits_total` and `weft_cache_misses_total`) missed. A miss is a cell Redis did not
///   have, or had in an unusable entry.
/// - `weft_cache_l2_writes_total`: entries written to Redis after a layout (`SET ... EX`).
/// - `weft_cache_l2_failures_total{op, kind}`: lookups (`get`) or writes (`set`) that got no answer: `timeout`,
///   `connection` (refused, closed, reset), `protocol` (a bad reply), `circuit_open` (not asked: Redis is
///   resting after repeated failures), `error` (a Redis error reply).
/// - `weft_cache_l2_corrupt_total{reason}`: entries read but not used (``CellEntry/Problem``: `header`,
///   `version`, `truncated`, `checksum`, `key`, `elements`, `output`); the cell is laid out again and its
///   entry rewritten.
/// - `weft_redis_duration_seconds{op}`: a histogram of the time from sending a batch to its answer (answered
///   ones only), 50 µs to 100 ms.
/// - `weft_layout_duration_seconds`: a histogram of the layout time of each request that laid out cells: its
///   cells' decode, layout and render times summed, 10 µs to 1 s.
///
/// Threading: every method MAY be called from any thread.
public final class FleetMetrics: Sendable {
    private let factory: PrometheusMetricsFactory
    let l2Hits: CoreMetrics.Counter
    let l2Misses: CoreMetrics.Counter
    let l2Writes: CoreMetrics.Counter
    /// Made once: a timer made per call would look its series up in the registry each time.
    private let layoutTimer: CoreMetrics.Timer
    private let redisTimers: [String: CoreMetrics.Timer]

    static let redisLabel = "weft_redis_duration_seconds"
    static let layoutLabel = "weft_layout_duration_seconds"

    /// The Redis latency buckets.
    static let redisBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100),
    ]
    /// The layout time buckets.
    static let layoutBuckets: [Duration] = [
        .microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250),
        .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .seconds(1),
    ]

    /// Sets the histograms' buckets in `factory`, before any instrument is made.
    static func configure(_ factory: inout PrometheusMetricsFactory) {
        factory.durationHistogramBuckets[redisLabel] = redisBuckets
        factory.durationHistogramBuckets[layoutLabel] = layoutBuckets
    }

    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
        l2Hits = CoreMetrics.Counter(label: "weft_cache_l2_hits_total", factory: factory)
        l2Misses = CoreMetrics.Counter(label: "weft_cache_l2_misses_total", factory: factory)
        l2Writes = CoreMetrics.Counter(label: "weft_cache_l2_writes_total", factory: factory)
        layoutTimer = CoreMetrics.Timer(label: Self.layoutLabel, factory: factory)
        redisTimers = Dictionary(uniqueKeysWithValues: ["get", "set"].map { op in
            (op, CoreMetrics.Timer(label: Self.redisLabel, dimensions: [("op", op)], factory: factory))
        })
    }

    /// Counts an operation (`get` or `set`) that got no answer, of `kind`.
    func l2Failure(op: String, kind: String) {
        CoreMetrics.Counter(label: "weft_cache_l2_failures_total", dimensions: [("op", op), ("kind", kind)], factory: factory)
            .increment()
    }

    /// Counts an entry not used, for `problem`.
    func l2Corrupt(_ problem: CellEntry.Problem) {
        CoreMetrics.Counter(label: "weft_cache_l2_corrupt_total", dimensions: [("reason", problem.rawValue)], factory: factory)
            .increment()
    }

    /// Records a Redis batch's round trip; `op` is `get` or `set`.
    func redisDuration(op: String, _ duration: Duration) {
        redisTimers[op]?.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// Records one request's layout time.
    func layoutDuration(_ duration: Duration) {
        layoutTimer.recordNanoseconds(Self.nanoseconds(duration))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
