import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The feed server's request context: Hummingbird's basic one, plus the request's channel, by which a request
/// finds its connection in the ``ConnectionTracker`` (to hear when its client leaves).
public struct FeedRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// The HTTP server as a service, with a grace period on graceful shutdown.
///
/// On graceful shutdown Hummingbird stops accepting, closes idle connections and lets the others finish their
/// requests. A client that stops halfway through its request would hold that up for good (or until the body
/// timeout), so once `grace` has passed the connections that have not delivered a whole request are closed.
/// Requests received in full are still answered: their own time limit bounds them.
struct HTTPService: Service {
    let application: Application<RouterResponder<FeedRequestContext>>
    let connections: ConnectionTracker
    let grace: Duration
    let metrics: ServerMetrics

    func run() async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await application.run()
                return true
            }
            group.addTask { [connections, grace, metrics] in
                try await gracefulShutdown()
                try await Task.sleep(for: grace)
                let closed = connections.closeUnanswered()
                for _ in 0..<closed { metrics.connectionClosed(reason: "shutdown") }
                return false
            }
            // Until the server stops; the grace period's end is not that.
            while let serverStopped = try await group.next(), !serverStopped {}
            group.cancelAll()
        }
    }
}

/// The process's limit on open files.
enum FileDescriptors {
    /// Raises the soft limit on open files to the hard limit (at most 1,048,576) and returns the soft limit now
    /// in force (1,024 if it cannot be read).
    static func raiseSoftLimit() -> Int {
        var limits = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limits) == 0 else { return 1_024 }
        let wanted = min(limits.rlim_max, 1 << 20)
        if limits.rlim_cur < wanted {
            var raised = limits
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limits = raised }
        }
        return Int(clamping: limits.rlim_cur)
    }
}
