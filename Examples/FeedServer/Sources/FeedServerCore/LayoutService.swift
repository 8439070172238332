import NIOCore
import WeftFormat
import WeftLayout
import WeftNodes

/// Lays out request bodies, documents and pages, on the layout threads, through the shared cell cache.
///
/// Where the work runs:
///
/// - The request handler (a Swift concurrency task of the HTTP server) calls ``layout(_:options:)``: it
///   queues one *prepare* job and awaits a continuation, racing a timer for the time limit. It never decodes
///   or lays out anything itself.
/// - The prepare job, on a layout thread (``LayoutThreads``), checks that the body is UTF-8, splits it into
///   its cells' texts (``BodyScanner``; bodies out of the plain shape are parsed whole instead), reads the
///   page's fields, and looks every cell up in the cache by its text, width, format, scale and font set: a hit
///   is never parsed. With a shared cache (``SharedCellCache``), the misses are then asked of Redis in one
///   pipelined batch, and the rest goes on from its answer, on an event loop, without blocking a thread.
///   It queues one job per cell missing from the caches and (when it did not ask Redis) lays out the first
///   of them itself.
/// - Each cell job, on whichever layout thread takes it, parses the cell's text, decodes it
///   (`LayoutDecoder.withNodes`, with the request's font set's measurer), counts
///   its elements against the request's limit, lays it out in `width x unbounded` with the thread's own
///   `LayoutBuilder`, renders it (`LayoutFormat.flat` or `.json`), stores it in the cache and delivers it to
///   the request's ``LayoutRun``. The cells of a page are thus laid out in parallel, one per thread.
/// - Whichever thread delivers the last cell assembles the answer and resumes the handler; a refusal or the
///   timer resumes it early, and the request's remaining jobs then do nothing.
///
/// Everything a body turns into (the parsed JSON, the elements, the layouts) is made and freed on the layout
/// threads, whose stacks have room for the configured depth; the one exception is a page parsed whole whose
/// request ends while Redis is answering: its cells' values are then released on the event loop.
public final class LayoutService: Sendable {
    public let configuration: FeedServerConfiguration
    public let threads: LayoutThreads
    public let cache: CellCache
    public let metrics: ServerMetrics
    /// The font sets requests may name, and a decoder for each (whose text leaves measure with it).
    public let fontSets: FontSets
    private let decoders: [String: LayoutDecoder]
    /// The second-level cache, shared by the instances of a fleet (Redis), or nil.
    public let shared: SharedCellCache?

    /// A service with its own layout threads, cache and metrics, set up from `configuration`, with `fontSets`
    /// and, if given, the `shared` second-level cache.
    public init(configuration: FeedServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
                fontSets: FontSets = FontSets(), shared: SharedCellCache? = nil) {
        self.configuration = configuration
        self.metrics = metrics
        threads = LayoutThreads(count: configuration.layoutThreads, stackSize: configuration.layoutStackSize,
                                slowAfter: configuration.slowJob, promoteAfter: configuration.timeout / 10,
                                stopWait: configuration.timeout,
                                onHandOff: { metrics.slowJobs.increment() })
        cache = CellCache(capacity: configuration.cacheBytes)
        let limits = LayoutDecoder.Limits(maxDepth: configuration.maxDepth, maxElements: configuration.maxElements)
        self.fontSets = fontSets
        decoders = fontSets.measurers.mapValues { LayoutDecoder.withNodes(limits: limits, textMeasurer: $0) }
        self.shared = shared
    }

    /// Why a request may not name the font set `name` (see ``FontSets/problem(naming:)``), or nil.
    public func fontSetProblem(_ name: String) -> String? {
        fontSets.problem(naming: name)
    }

    /// Lays out `body` (a document, or a page whose fields override `options`) and returns the answer, within
    /// the configured time limit. `client`, when given, ends the work early if the client leaves. MAY be called
    /// from any task, concurrently; does not block its thread.
    public func layout(_ body: ByteBuffer, options: LayoutOptions, client: ClientWatch? = nil) async -> LayoutOutcome {
        let slowBody = configuration.slowBodyBytes
        let run = LayoutRun(timeout: configuration.timeout, isLarge: slowBody > 0 && body.readableBytes >= slowBody)
        let outcome = await withTaskGroup(of: Void.self, returning: LayoutOutcome.self) { group in
            group.addTask {
                // Cancelled (below) once the answer is in; only a sleep that runs its course times the run out.
                do {
                    try await Task.sleep(until: run.deadline)
                    run.finish(.timedOut(run.timeout))
                } catch {}
            }
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<LayoutOutcome, Never>) in
                run.attach(continuation)
                if let client, !client.start({ run.finish(.abandoned) }) {
                    run.finish(.abandoned)
                    return
                }
                let queued = threads.submit({ [self] builder in
                    prepare(run, body: body, options: options, builder: &builder)
                }, in: run.group)
                if !queued { run.finish(.unavailable) }
            }
            client?.stop()
            group.cancelAll()
            return outcome
        }
        // A late or abandoned request's jobs need not wait for a thread: they stop in the queue.
        let discarded = threads.discardPending(in: run.group)
        if discarded > 0 { metrics.jobStopped(stage: "queue", count: discarded) }
        // Once per request (a histogram record per cell costs more than a cell's layout under the sanitizers).
        let layoutTime = run.layoutTime
        if layoutTime > .zero { metrics.fleet.layoutDuration(layoutTime) }
        switch outcome {
        case .timedOut: metrics.requestsStopped(reason: "deadline")
        case .abandoned: metrics.requestsStopped(reason: "client")
        default: break
        }
        return outcome
    }

    /// Whether `run`'s work should stop now; counts the stop at `stage`.
    private func stops(_ run: LayoutRun, at stage: String) -> Bool {
        guard run.shouldStop else { return false }
        metrics.jobStopped(stage: stage)
        return true
    }

    /// A parser for the run's input: its JSON depth allowance and width limit, and a stop hook.
    private func parser(_ run: LayoutRun, depth: Int) -> JSONParser {
        JSONParser(maxDepth: depth, maxWidth: configuration.maxElements, shouldStop: { run.shouldStop })
    }

    /// The prepare job: parse, cache lookups, then the cells' jobs. Runs on a layout thread.
    private func prepare(_ run: LayoutRun, body: ByteBuffer, options: LayoutOptions, builder: inout LayoutBuilder) {
        guard !stops(run, at: "queue") else { return }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            run.finish(.refused(LayoutError("the body is not UTF-8 text", path: "root", kind: .malformed)))
            return
        }
        let input: LayoutInput
        if let split = BodyScanner.split(text) {
            input = LayoutInput(split, defaults: options)
        } else {
            do throws(LayoutError) {
                input = try LayoutInput.parse(text, defaults: options, parser: parser(run, depth: LayoutInput.jsonDepth(forElementDepth: configuration.maxDepth)))
            } catch {
                if !stops(run, at: "parse") { run.finish(.refused(error)) }
                return
            }
        }
        guard !stops(run, at: "parse") else { return }
        // Every cell holds at least one element: more cells than elements allowed is refused before any work.
        guard input.cells.count <= configuration.maxElements else {
            run.finish(.refused(Self.tooManyElements(configuration.maxElements)))
            return
        }
        let usesCache = configuration.cacheBytes > 0
        var outputs: [String?] = Array(repeating: nil, count: input.cells.count)
        var elements = 0
        var misses: [Miss] = []
        for (index, cell) in input.cells.enumerated() {
            guard usesCache else {
                misses.append((index, cell, nil))
                continue
            }
            let key = CellKey(content: cell.keyContent, options: input.options)
            if let hit = cache.value(for: key) {
                metrics.cacheHits.increment()
                outputs[index] = hit.output
                elements += hit.elementCount
            } else {
                metrics.cacheMisses.increment()
                misses.append((index, cell, key))
            }
        }
        guard !stops(run, at: "queue") else { return }
        let (isPage, options) = (input.isPage, input.options)
        if let shared, usesCache, !misses.isEmpty {
            // Read-through: the misses asked of Redis together; the rest goes on from its answer (an event loop).
            shared.lookup(misses.compactMap(\.key)) { [self, outputs, elements, misses] found in
                var (outputs, elements) = (outputs, elements)
                var rest: [Miss] = []
                for (miss, cell) in zip(misses, found) {
                    guard let cell, let key = miss.key else {
                        rest.append(miss)
                        continue
                    }
                    outputs[miss.index] = cell.output
                    elements += cell.elementCount
                    let evicted = cache.insert(cell, for: key)
                    if evicted > 0 { metrics.cacheEvictions.increment(by: evicted) }
                }
                guard !stops(run, at: "queue") else { return }
                _ = start(run, isPage: isPage, outputs: outputs, elements: elements, misses: rest, options: options,
                          body: text, keepFirst: false)
            }
            return
        }
        if let first = start(run, isPage: isPage, outputs: outputs, elements: elements, misses: misses, options: options,
                             body: text, keepFirst: true) {
            layOutCell(run, first.index, first.cell, key: first.key, options: options, body: text, builder: &builder)
        }
    }

    /// A cell the caches did not have: where it goes in the answer, its input, and its cache key (nil: no cache).
    private typealias Miss = (index: Int, cell: LayoutInput.Cell, key: CellKey?)

    /// Starts gathering the run's cells (`outputs`: those known, holding `elements` elements) and queues a job
    /// for each miss, except the first when `keepFirst`, which it returns for the caller to lay out itself.
    private func start(_ run: LayoutRun, isPage: Bool, outputs: [String?], elements: Int, misses: [Miss],
                       options: LayoutOptions, body text: String, keepFirst: Bool) -> Miss? {
        let maxElements = configuration.maxElements
        guard run.begin(isPage: isPage, outputs: outputs, elements: elements, maxElements: maxElements) else {
            run.finish(.refused(Self.tooManyElements(maxElements)))
            return nil
        }
        for miss in keepFirst ? misses.dropFirst() : misses[...] {
            let queued = threads.submit({ [self] builder in
                layOutCell(run, miss.index, miss.cell, key: miss.key, options: options, body: text, builder: &builder)
            }, in: run.group)
            if !queued {
                run.finish(.unavailable)
                return nil
            }
        }
        return keepFirst ? misses.first : nil
    }

    /// A cell job: parse (if the body was split unparsed), decode, count, lay out, render, cache, deliver.
    /// Runs on a layout thread, and stops between steps once the run should stop. `body` is the whole body,
    /// to word a parse error as parsing all of it would.
    private func layOutCell(_ run: LayoutRun, _ index: Int, _ cell: LayoutInput.Cell, key: CellKey?,
                            options: LayoutOptions, body: String, builder: inout LayoutBuilder) {
        guard !stops(run, at: "queue") else { return }
        let maxElements = configuration.maxElements
        let value: JSONValue
        switch cell.content {
        case .parsed(let parsed):
            value = parsed
        case .text(let text):
            do throws(LayoutError) {
                let depth = LayoutInput.jsonDepth(forElementDepth: configuration.maxDepth, isPageCell: cell.path != "root")
                value = try parser(run, depth: depth).parse(text)
            } catch {
                guard !stops(run, at: "parse") else { return }
                run.finish(.refused(wholeBodyError(body, run: run, otherwise: Self.relocated(error, to: cell.path))))
                return
            }
        }
        let output: String
        let elementCount: Int
        let started = ContinuousClock.now
        do throws(LayoutError) {
            guard !stops(run, at: "decode") else { return }
            guard let decoder = decoders[options.fontSet] else {
                throw LayoutError(fontSets.problem(naming: options.fontSet) ?? "unknown font set", path: "query fonts")
            }
            let document = try decoder.decode(value, path: cell.path)
            guard run.addElements(document.elementCount, maxElements: maxElements) else {
                throw Self.tooManyElements(maxElements)
            }
            guard !stops(run, at: "layout") else { return }
            let range = SizeRange(min: Size(width: options.width, height: 0),
                                  max: Size(width: options.width, height: .infinity))
            // A thread's builder rounds to one scale: it is replaced when a cell asks for another (and kept for
            // the next jobs, so that a run of requests at one scale reuses its buffers).
            if builder.grid.scale != options.scale { builder = LayoutBuilder(scale: options.scale) }
            let layout: Layout
            // The layout itself stops within a few hundred elements of the run's end (its deadline, its client
            // gone, another cell refused), and so do the text measurements inside it (every few hundred
            // microseconds of work): the run is then answered already, and the error goes nowhere.
            builder.shouldStop = { run.shouldStop }
            defer { builder.shouldStop = nil }
            do throws(LayoutError) {
                layout = try Layout.compute(document.root, in: range, using: &builder)
            } catch {
                if stops(run, at: "layout") { return }
                throw Self.relocated(error, to: cell.path)
            }
            guard !stops(run, at: "render") else { return }
            output = options.format.layoutFormat.render(layout)
            elementCount = document.elementCount
        } catch {
            run.finish(.refused(error))
            return
        }
        metrics.cellsLaidOut.increment()
        let laidOut = CachedCell(output: output, elementCount: elementCount)
        if let key {
            let evicted = cache.insert(laidOut, for: key)
            if evicted > 0 { metrics.cacheEvictions.increment(by: evicted) }
        }
        run.deliver(output, at: index, layoutTime: ContinuousClock.now - started)
        // Write-behind: after the answer has its cell, and without waiting for Redis.
        if let key, let shared { shared.store(laidOut, for: key) }
    }

    /// The error of parsing the whole body, which is what a request answers when one of its cells does not
    /// parse (the positions and paths of the message are the body's, as `weft layout` gives them).
    private func wholeBodyError(_ body: String, run: LayoutRun, otherwise cellError: LayoutError) -> LayoutError {
        do throws(LayoutError) {
            let depth = LayoutInput.jsonDepth(forElementDepth: configuration.maxDepth)
            _ = try LayoutInput.parse(body, defaults: LayoutOptions(), parser: parser(run, depth: depth))
            return cellError
        } catch {
            return error
        }
    }

    /// The refusal of a request whose cells hold more elements together than the limit.
    static func tooManyElements(_ limit: Int) -> LayoutError {
        LayoutError("more elements than the limit of \(limit) in all the cells together", path: "cells", kind: .limit)
    }

    /// A layout error (whose path starts at `root`) moved to the cell at `path`, such as `cells[2]`.
    static func relocated(_ error: LayoutError, to path: String) -> LayoutError {
        guard path != "root", error.path.hasPrefix("root") else { return error }
        let rest = error.path.dropFirst(4)
        guard rest.isEmpty || rest.first == "." || rest.first == "[" else { return error }
        var moved = error
        moved.path = path + rest
        return moved
    }
}

extension OutputFormat {
    /// The WeftLayout renderer for this format.
    var layoutFormat: LayoutFormat {
        switch self {
        case .flat: return .flat
        case .tree: return .json
        }
    }
}
