import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals
import WeftFormat
import WeftLayout

/// The feed server: a Hummingbird application answering layout requests with a ``LayoutService``.
///
/// Routes:
///
/// - `POST /v1/layout`: lays out a document or a page (see `Examples/FeedServer/README.md`).
/// - `GET /health`: `ok`.
/// - `GET /metrics`: ``ServerMetrics`` in the Prometheus text format.
///
/// Threading: route handlers run as Swift concurrency tasks of the HTTP server; they read the body, validate
/// the query and await the layout service, which does all decoding and layout on its own threads. Nothing
/// here blocks a thread.
///
/// Connections go through ``GuardedHTTPChannel``: at most ``connections``' limit at once (the process's
/// open-file soft limit is raised to its hard limit when the server is made, and the limit keeps
/// ``FeedServerConfiguration/descriptorReserve`` descriptors spare), with idle, header and body timeouts.
public struct FeedServer: Sendable {
    public let configuration: FeedServerConfiguration
    public let service: LayoutService
    public let connections: ConnectionTracker
    public let application: Application<RouterResponder<FeedRequestContext>>

    /// A server set up from `configuration`; throws if a value is out of range. `onServerRunning` is called
    /// with the listening channel once the server is up (its `localAddress` has the port when it was 0).
    public init(
        configuration: FeedServerConfiguration,
        logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws(ConfigurationError) {
        if let problem = configuration.problem { throw ConfigurationError(description: problem) }
        self.configuration = configuration
        let logger = logger ?? Logger(label: "weft-feed-server")
        let metrics = ServerMetrics()
        let shared = configuration.redis.map { address in
            var settings = RedisClient.Settings(address: address)
            settings.connections = configuration.redisConnections
            settings.commandTimeout = configuration.redisTimeout
            return SharedCellCache(client: RedisClient(settings), cacheVersion: configuration.cacheVersion,
                                   ttlSeconds: configuration.redisTTL, metrics: metrics.fleet, logger: logger)
        }
        let fontSets = try FontSets.load(configuration.fontSetDirectories, textCacheBytes: configuration.textCacheBytes) {
            logger.warning("\($0)")
        }
        let service = LayoutService(configuration: configuration, metrics: metrics, fontSets: fontSets, shared: shared)
        let connections = ConnectionTracker(limit: configuration.connectionLimit(openFiles: FileDescriptors.raiseSoftLimit()))
        self.service = service
        self.connections = connections
        let timeouts = configuration.timeouts
        application = Application(
            router: Self.router(service, connections: connections),
            server: HTTPServerBuilder { responder in
                GuardedHTTPChannel(responder: responder, timeouts: timeouts, tracker: connections, metrics: service.metrics)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "weft-feed-server",
                // A backstop: stop accepting while refused or replaced connections are still closing.
                availableConnectionsDelegate: MaximumAvailableConnections(connections.limit + 16)),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully: the HTTP server stops accepting connections,
    /// finishes the requests in flight (closing, after the grace period, connections whose request has not
    /// fully arrived), then the layout threads finish their queued jobs and exit.
    public func run() async throws {
        let c = configuration
        application.logger.info("""
            weft feed server: \(c.layoutThreads) layout threads with \(c.layoutStackSize >> 20) MB stacks; limits: \
            body \(c.maxBodyBytes) bytes, depth \(c.maxDepth), \(c.maxElements) elements, \(Self.seconds(c.timeout)) s, \
            \(connections.limit) connections (idle \(Self.seconds(c.idleTimeout)) s, header \(Self.seconds(c.headerTimeout)) s, \
            body \(Self.seconds(c.bodyTimeout)) s); cache \(c.cacheBytes) bytes; \
            shared cache \(c.redis.map { "Redis \($0) (\(service.shared?.namespace ?? ""))" } ?? "off"); \
            font sets \(service.fontSets.names.joined(separator: ", "))
            """)
        try await serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint]).run()
    }

    /// The layout threads and the HTTP server in one group, which shuts down in reverse order on graceful
    /// shutdown (one of `gracefulShutdownSignals`, or `triggerGracefulShutdown()`): the HTTP server first,
    /// finishing its requests in flight, then the layout threads it relies on.
    public func serviceGroup(gracefulShutdownSignals: [UnixSignal]) -> ServiceGroup {
        let http = HTTPService(application: application, connections: connections,
                               grace: configuration.shutdownGrace, metrics: service.metrics)
        return ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [service.threads, http],
            gracefulShutdownSignals: gracefulShutdownSignals,
            logger: application.logger
        ))
    }

    /// The router: the three routes, with every request counted and timed.
    public static func router(_ service: LayoutService, connections: ConnectionTracker) -> Router<FeedRequestContext> {
        let router = Router(context: FeedRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: service.metrics, routes: ["/health", "/metrics", "/v1/layout"]))
        router.get("/health") { _, _ in "ok" }
        router.get("/metrics") { _, _ -> Response in
            let threads = service.threads
            let text = service.metrics.render(ServerMetrics.Snapshot(
                cache: service.cache.statistics, queuedJobs: threads.queuedJobs,
                handedOffThreads: threads.slowJobs.running, openConnections: connections.openCount))
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.post("/v1/layout") { request, context -> Response in
            await layout(request, service, client: connections.watch(context.channel))
        }
        return router
    }

    /// `POST /v1/layout`: size limit, query, body, then the layout service; every problem is answered with a
    /// status and a JSON error body, never thrown.
    static func layout(_ request: Request, _ service: LayoutService, client: ClientWatch? = nil) async -> Response {
        if let type = request.headers[.contentType], !isJSON(type) {
            return answer(.unsupportedMediaType, error: "the body's Content-Type \(JSONValue.quoted(type)) is not JSON; "
                          + "send application/json (or no Content-Type)")
        }
        let limit = service.configuration.maxBodyBytes
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            return tooLarge(limit)
        }
        let query = request.uri.queryParameters
        let options: LayoutOptions
        do throws(LayoutError) {
            options = try LayoutOptions(queryWidth: query["width"], queryFormat: query["format"],
                                        queryScale: query["scale"], queryFonts: query["fonts"])
            if let problem = service.fontSetProblem(options.fontSet) { throw LayoutError(problem, path: "query fonts") }
        } catch {
            return answer(.badRequest, error: error.description)
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            return tooLarge(limit)
        } catch {
            return answer(.badRequest, error: "could not read the body: \(error)")
        }
        switch await service.layout(body, options: options, client: client) {
        case .laidOut(let text):
            return answer(.ok, body: text)
        case .refused(let error):
            return answer(error.kind == .limit ? .unprocessableContent : .badRequest, error: error.description)
        case .timedOut(let limit):
            return answer(.serviceUnavailable, error: "the layout took longer than the time limit of \(seconds(limit)) s")
        case .abandoned:
            // Nobody reads it; the status (nginx's "client closed request") keeps these apart in the metrics.
            return answer(HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"),
                          error: "the client closed the connection before the answer was ready")
        case .unavailable:
            return answer(.serviceUnavailable, error: "the server is shutting down")
        }
    }

    /// Whether a Content-Type names JSON: `application/json` or any `+json` type, whatever its parameters.
    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let name = mediaType.filter { $0 != " " && $0 != "\t" }.lowercased()
        return name == "application/json" || (name.hasPrefix("application/") && name.hasSuffix("+json"))
    }

    static func tooLarge(_ limit: Int) -> Response {
        answer(.contentTooLarge, error: "the body is larger than the limit of \(limit) bytes")
    }

    static func answer(_ status: HTTPResponse.Status, error: String) -> Response {
        answer(status, body: JSONText.errorBody(error))
    }

    static func answer(_ status: HTTPResponse.Status, body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// A duration in seconds, as short as it can be written (`2`, `0.001`).
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
