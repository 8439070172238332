import CoreMetrics
import Hummingbird
import Metrics
import Prometheus

/// The server's metrics: swift-metrics instruments backed by a Prometheus registry of the server's own, so
/// that several servers (in tests) never share counts and nothing needs `MetricsSystem.bootstrap`.
///
/// Exposed at `GET /metrics` in the Prometheus text format:
///
/// - `weft_http_requests_total{route, status}`: requests answered, by route (`/v1/layout`, `/health`,
///   `/metrics`, or `unmatched`) and status code.
/// - `weft_http_request_duration_seconds{route}`: a histogram of the time from a request's arrival at the
///   router to its answer.
/// - `weft_cache_hits_total`, `weft_cache_misses_total`, `weft_cache_evictions_total`: cell cache lookups and
///   evictions; `weft_cache_bytes`, `weft_cache_entries`: its size, read when scraped.
/// - `weft_cells_laid_out_total`: cells decoded and laid out (cache misses that got that far).
/// - `weft_layout_queue_jobs`: jobs waiting for a layout thread, read when scraped.
/// - `weft_requests_stopped_total{reason}`: layout requests that ended early, at their `deadline` or because
///   their `client` left; `weft_layout_jobs_stopped_total{stage}`: jobs that saw it and stopped (`queue`,
///   `parse`, `decode`, `layout`, `render`: the step they were about to take or, for `parse`, were in; `queue`
///   also counts the jobs dropped before they started).
/// - `weft_layout_slow_jobs_total`: jobs handed off to an idle-priority thread for running long;
///   `weft_layout_handed_off_threads`: such threads now, read when scraped.
/// - `weft_connections_open`: connections open now, read when scraped; `weft_connections_closed_total{reason}`:
///   connections the server closed (`idle_timeout`, `header_timeout`, `body_timeout`, `evicted` to make room,
///   `refused` over the limit, `shutdown` after the grace period, `malformed` after refusing a request the
///   HTTP decoder could not read).
///
/// Threading: every method MAY be called from any thread (the instruments are atomic).
public final class ServerMetrics: Sendable {
    /// The registry the instruments report to.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    let cacheHits: CoreMetrics.Counter
    let cacheMisses: CoreMetrics.Counter
    let cacheEvictions: CoreMetrics.Counter
    let cellsLaidOut: CoreMetrics.Counter
    let slowJobs: CoreMetrics.Counter
    private let cacheBytes: CoreMetrics.Gauge
    private let cacheEntries: CoreMetrics.Gauge
    private let queuedJobs: CoreMetrics.Gauge
    private let handedOffThreads: CoreMetrics.Gauge
    private let openConnections: CoreMetrics.Gauge
    /// The shared cache's and layout time's instruments.
    public let fleet: FleetMetrics

    static let durationLabel = "weft_http_request_duration_seconds"

    /// The latency histogram's buckets: from half a millisecond to the longest time limit worth setting.
    public static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Self.durationLabel] = Self.durationBuckets
        FleetMetrics.configure(&factory)
        self.factory = factory
        fleet = FleetMetrics(factory: factory)
        cacheHits = CoreMetrics.Counter(label: "weft_cache_hits_total", factory: factory)
        cacheMisses = CoreMetrics.Counter(label: "weft_cache_misses_total", factory: factory)
        cacheEvictions = CoreMetrics.Counter(label: "weft_cache_evictions_total", factory: factory)
        cellsLaidOut = CoreMetrics.Counter(label: "weft_cells_laid_out_total", factory: factory)
        slowJobs = CoreMetrics.Counter(label: "weft_layout_slow_jobs_total", factory: factory)
        cacheBytes = CoreMetrics.Gauge(label: "weft_cache_bytes", factory: factory)
        cacheEntries = CoreMetrics.Gauge(label: "weft_cache_entries", factory: factory)
        queuedJobs = CoreMetrics.Gauge(label: "weft_layout_queue_jobs", factory: factory)
        handedOffThreads = CoreMetrics.Gauge(label: "weft_layout_handed_off_threads", factory: factory)
        openConnections = CoreMetrics.Gauge(label: "weft_connections_open", factory: factory)
    }

    /// Counts a layout request that ended early: `reason` is `deadline` or `client`.
    func requestsStopped(reason: String) {
        CoreMetrics.Counter(label: "weft_requests_stopped_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// Counts `count` jobs that stopped because their request should stop, at `stage`.
    func jobStopped(stage: String, count: Int = 1) {
        CoreMetrics.Counter(label: "weft_layout_jobs_stopped_total", dimensions: [("stage", stage)], factory: factory)
            .increment(by: count)
    }

    /// Counts a connection the server closed, for `reason`.
    func connectionClosed(reason: String) {
        CoreMetrics.Counter(label: "weft_connections_closed_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// Counts a request answered with `status` on `route`, which took `duration`.
    public func recordRequest(route: String, status: Int, duration: Duration) {
        CoreMetrics.Counter(label: "weft_http_requests_total", dimensions: [("route", route), ("status", String(status))],
                factory: factory).increment()
        CoreMetrics.Timer(label: Self.durationLabel, dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(FleetMetrics.nanoseconds(duration))
    }

    /// What the gauges show: read when scraped.
    public struct Snapshot: Sendable {
        public var cache: CellCache.Statistics
        public var queuedJobs: Int
        public var handedOffThreads: Int
        public var openConnections: Int

        public init(cache: CellCache.Statistics, queuedJobs: Int, handedOffThreads: Int, openConnections: Int) {
            self.cache = cache
            self.queuedJobs = queuedJobs
            self.handedOffThreads = handedOffThreads
            self.openConnections = openConnections
        }
    }

    /// The metrics in the Prometheus text format, with the gauges set from `now`.
    public func render(_ now: Snapshot) -> String {
        cacheBytes.record(now.cache.bytes)
        cacheEntries.record(now.cache.entries)
        queuedJobs.record(now.queuedJobs)
        handedOffThreads.record(now.handedOffThreads)
        openConnections.record(now.openConnections)
        return registry.emitToString()
    }
}

/// Counts every request and times it, by route and status, in ``ServerMetrics``.
///
/// The route is the router's pattern (`/v1/layout`), never the raw path, so that unknown paths cannot grow
/// the number of series: they all count as `unmatched`.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    /// The router's patterns; any other endpoint path counts as `unmatched`.
    let routes: Set<String>

    func route(_ context: Context) -> String {
        context.endpointPath.flatMap { routes.contains($0) ? $0 : nil } ?? "unmatched"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.recordRequest(route: route(context), status: response.status.code,
                                  duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics.recordRequest(route: route(context), status: status.code,
                                  duration: ContinuousClock.now - start)
            throw error
        }
    }
}
