import ArgumentParser
import Foundation
import WeftLayout
import WeftAllocator
import WeftScenarios

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run benchmark scenarios 1 to 9 and the text scenarios T1 to T4 quickly and print a table (or JSON).",
        discussion: """
        The trees are the Benchmarks package's and the peers' (see README, Performance). Times are medians of \
        --repetitions runs after a warm-up; ratios are against the hand-written layout of the same cell, \
        measured in the same run. Build with -c release for meaningful numbers.
        """
    )

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Timed runs per scenario (after one warm-up).")
    var repetitions: Int = 5

    @Option(help: "Run only the scenarios whose label contains this text (for profiling).")
    var only: String?

    @Option(help: ArgumentHelp(
        "Thread counts for the parallel feed scenario, each reported with its speedup over the first (default: 1 and every core).",
        valueName: ThreadCounts.valueName))
    var threads: ThreadCounts?

    @Option(help: ArgumentHelp(
        "Feed sizes for the feed-size rows (fill, insert, delete, resize, scroll), each compared with the first (default: 10000,100000).",
        valueName: FeedSizes.valueName))
    var feedSizes: FeedSizes?

    func run() throws {
        try reportingInputErrors {
            guard repetitions >= 1 && repetitions <= 1000 else {
                throw InputError(description: "--repetitions: expected a number from 1 to 1000, got \(repetitions)")
            }
            let cores = ProcessInfoCores.count
            let threadCounts = threads?.counts ?? (cores > 1 ? [1, cores] : [1])
            let steps: [(String, () throws -> [ScenarioResult])] = [
                ("hand-written", { [Scenarios.handWritten(cells: 10_000, repetitions: repetitions)] }),
                ("cold spec 1,000", { [try Scenarios.coldSpec(cells: 1000, repetitions: repetitions)] }),
                ("cold spec 10,000", { [try Scenarios.coldSpec(cells: 10_000, repetitions: repetitions)] }),
                ("cold nodes 1,000", { [try Scenarios.coldNodes(cells: 1000, repetitions: repetitions)] }),
                ("cold nodes 10,000", { [try Scenarios.coldNodes(cells: 10_000, repetitions: repetitions)] }),
                ("unchanged", { [try Scenarios.relayoutUnchanged(cells: 1000, repetitions: repetitions)] }),
                ("one leaf, one cell", { [try Scenarios.relayoutChanged(cells: 1000, everyCell: false, repetitions: repetitions)] }),
                ("one leaf, every cell", { [try Scenarios.relayoutChanged(cells: 1000, everyCell: true, repetitions: repetitions)] }),
                ("wide", { [try Scenarios.stress("wide", repetitions: repetitions)] }),
                ("deep", { [try Scenarios.stress("deep", repetitions: repetitions)] }),
                ("huge nested", { [try Scenarios.stress("huge", repetitions: repetitions)] }),
                ("parallel feed", { try Scenarios.parallelFeed(cells: 10_000, threads: threadCounts, repetitions: repetitions) }),
                ("batch insert", { [try Scenarios.batchInsert(existing: 10_000, inserted: 100, repetitions: repetitions)] }),
                ("feed sizes", { try Scenarios.feedScale(sizes: feedSizes?.sizes ?? [10_000, 100_000], repetitions: repetitions) }),
                ("reload 5,000", { [try Scenarios.reload(cells: 5_000, repetitions: repetitions)] }),
                ("parse 10,000", { [try Scenarios.parse(elements: 10_000, repetitions: repetitions)] }),
                ("parse 100,000", { [try Scenarios.parse(elements: 100_000, repetitions: repetitions)] }),
                ("text shaping", { [try TextScenarios.shapingVersusHarfBuzz(repetitions: repetitions)] }),
                ("text re-measure", { [try TextScenarios.remeasureCached(repetitions: repetitions)] }),
                ("text parallel", { [try TextScenarios.parallelComments(repetitions: repetitions)] }),
                ("text cell", { [try TextScenarios.textCellCold(repetitions: repetitions)] }),
            ]
            var results: [ScenarioResult] = []
            let interactive = isatty(STDERR_FILENO) == 1
            let chosen = steps.filter { only == nil || $0.0.contains(only ?? "") || $0.0 == "hand-written" }
            for (i, (label, step)) in chosen.enumerated() {
                if interactive { printError("\rweft bench: \(i + 1)/\(chosen.count) \(label)...                 ", newline: false) }
                results += try step()
            }
            if interactive { printError("\r" + String(repeating: " ", count: 60) + "\r", newline: false) }
            print(json ? try BenchReport.json(results) : BenchReport.table(results, repetitions: repetitions))
        }
    }
}

enum BenchReport {
    static func time(_ seconds: Double) -> String {
        if seconds >= 1e-3 { return String(format: "%.2f ms", seconds * 1e3) }
        if seconds >= 1e-6 { return String(format: "%.2f us", seconds * 1e6) }
        return String(format: "%.1f ns", seconds * 1e9)
    }

    /// The results as a table whose columns are as wide as their widest entry (plus two spaces).
    static func table(_ results: [ScenarioResult], repetitions: Int) -> String {
        let hand = results.first { $0.id == "2-hand" }?.perItem ?? 0
        var rows = [["scenario", "per item", "run", "note"]]
        for r in results {
            var note = ""
            if r.unit == "cell" && hand > 0 && !["2-hand", "7-insert", "7-reload"].contains(r.id) && !r.id.hasPrefix("8-") {
                note = String(format: "%.0fx the hand-written cell", r.perItem / hand)
            }
            if let speedup = r.extra["speedup"], let base = r.extra["baseThreads"] {
                note += String(format: "; speedup %.2fx over %.0f thread%@", speedup, base, base == 1 ? "" : "s")
            }
            switch r.id {
            case "t1-shaping": note = String(format: "%.2fx HarfBuzz called directly", r.extra["ratio"] ?? 0)
            case "t2-remeasure": note = String(format: "%.1fx faster than cold", r.extra["speedup"] ?? 0)
            case "t3-parallel": note = String(format: "speedup %.2fx over 1 thread", r.extra["speedup"] ?? 0)
            default:
                if r.id.hasPrefix("t4-") {
                    note += String(format: "; %.2fx the fixed-size cell; its text alone %@/cell", r.extra["ratio"] ?? 0,
                                  time((r.extra["textSeconds"] ?? 0) / Double(max(r.items, 1))))
                }
            }
            if let growth = r.extra["growth"], let base = r.extra["baseSize"] {
                note = String(format: "%.2fx the figure at %@", growth, Int(base).groupedDigits)
            }
            if let bytes = r.extra["bookkeepingBytesPerItem"] {
                note += (note.isEmpty ? "" : "; ") + String(format: "the feed's own bookkeeping %.0f B/item", bytes)
            }
            if r.id.hasPrefix("8-insert"), let cells = r.extra["cellSeconds"] {
                note += (note.isEmpty ? "" : "; ") + "the cells' own work \(time(cells))"
            }
            if r.id == "7-insert", let total = r.extra["totalSeconds"] {
                note = "apply-queue commit; \(time(total)) from call to commit"
            }
            if r.id == "7-reload", let longest = r.extra["longestTurnSeconds"], let turns = r.extra["turns"] {
                note = String(format: "commit turn; %.0f turns, longest %@, cells put in place in %@", turns, time(longest),
                              time(r.extra["preparationSeconds"] ?? 0))
            }
            rows.append([r.name, "\(time(r.perItem))/\(r.unit)", time(r.median), note])
        }
        let widths = (0..<3).map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            "  " + (0..<3).map { row[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined() + row[3]
        }
        let heading = "weft bench: median of \(repetitions) runs, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Allocator.name); mallocs: see Benchmarks/"
        return ([heading] + lines).joined(separator: "\n")
    }

    /// The results as JSON (non-finite figures are written as the strings "inf", "-inf" and "nan").
    static func json(_ results: [ScenarioResult]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(results.map(Row.init)), as: UTF8.self)
    }

    /// One result as JSON writes it.
    struct Row: Encodable {
        let id: String
        let name: String
        let unit: String
        let items: Int
        let medianSeconds: Double
        let secondsPerItem: Double
        let runs: [Double]
        let extra: [String: Double]

        init(_ r: ScenarioResult) {
            (id, name, unit, items, runs, extra) = (r.id, r.name, r.unit, r.items, r.runs, r.extra)
            (medianSeconds, secondsPerItem) = (r.median, r.perItem)
        }
    }
}
