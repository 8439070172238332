import ArgumentParser
import Foundation
import WeftLayout
import WeftAllocator
import WeftScenarios

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run benchmark scenarios 1 to 7 quickly and print a table (or JSON).",
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

    func run() throws {
        try reportingInputErrors {
            guard repetitions >= 1 && repetitions <= 1000 else {
                throw InputError(description: "--repetitions: expected a number from 1 to 1000, got \(repetitions)")
            }
            let steps: [(String, () throws -> ScenarioResult)] = [
                ("hand-written", { Scenarios.handWritten(cells: 10_000, repetitions: repetitions) }),
                ("cold spec 1,000", { try Scenarios.coldSpec(cells: 1000, repetitions: repetitions) }),
                ("cold spec 10,000", { try Scenarios.coldSpec(cells: 10_000, repetitions: repetitions) }),
                ("cold nodes 1,000", { try Scenarios.coldNodes(cells: 1000, repetitions: repetitions) }),
                ("cold nodes 10,000", { try Scenarios.coldNodes(cells: 10_000, repetitions: repetitions) }),
                ("unchanged", { try Scenarios.relayoutUnchanged(cells: 1000, repetitions: repetitions) }),
                ("one leaf, one cell", { try Scenarios.relayoutChanged(cells: 1000, everyCell: false, repetitions: repetitions) }),
                ("one leaf, every cell", { try Scenarios.relayoutChanged(cells: 1000, everyCell: true, repetitions: repetitions) }),
                ("wide", { try Scenarios.stress("wide", repetitions: repetitions) }),
                ("deep", { try Scenarios.stress("deep", repetitions: repetitions) }),
                ("huge nested", { try Scenarios.stress("huge", repetitions: repetitions) }),
                ("parallel feed", { try Scenarios.parallelFeed(cells: 10_000, repetitions: repetitions) }),
                ("batch insert", { try Scenarios.batchInsert(existing: 10_000, inserted: 100, repetitions: repetitions) }),
            ]
            var results: [ScenarioResult] = []
            let interactive = isatty(STDERR_FILENO) == 1
            let chosen = steps.filter { only == nil || $0.0.contains(only ?? "") || $0.0 == "hand-written" }
            for (i, (label, step)) in chosen.enumerated() {
                if interactive { printError("\rweft bench: \(i + 1)/\(chosen.count) \(label)...                 ", newline: false) }
                results.append(try step())
            }
            if interactive { printError("\r" + String(repeating: " ", count: 60) + "\r", newline: false) }
            print(json ? BenchReport.json(results) : BenchReport.table(results, repetitions: repetitions))
        }
    }
}

enum BenchReport {
    static func time(_ seconds: Double) -> String {
        if seconds >= 1e-3 { return String(format: "%.2f ms", seconds * 1e3) }
        if seconds >= 1e-6 { return String(format: "%.2f us", seconds * 1e6) }
        return String(format: "%.1f ns", seconds * 1e9)
    }

    static func table(_ results: [ScenarioResult], repetitions: Int) -> String {
        let hand = results.first { $0.id == "2-hand" }?.perItem ?? 0
        var lines = ["weft bench: median of \(repetitions) runs, \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Allocator.name); mallocs: see Benchmarks/"]
        lines.append("  " + "scenario".padding(toLength: 52, withPad: " ", startingAt: 0) + "per item".padding(toLength: 16, withPad: " ", startingAt: 0)
                     + "run".padding(toLength: 12, withPad: " ", startingAt: 0) + "note")
        for r in results {
            var note = ""
            if r.unit == "cell" && hand > 0 && r.id != "2-hand" && r.id != "7-insert" {
                note = String(format: "%.0fx the hand-written cell", r.perItem / hand)
            }
            if let speedup = r.extra["speedup"] {
                note = String(format: "1 thread %@, speedup %.2fx", time(r.extra["serialSeconds"] ?? 0), speedup)
            }
            if r.id == "7-insert", let total = r.extra["totalSeconds"] {
                note = "apply-queue commit; \(time(total)) from call to commit"
            }
            let per = "\(time(r.perItem))/\(r.unit)"
            lines.append("  " + r.name.padding(toLength: 52, withPad: " ", startingAt: 0) + per.padding(toLength: 16, withPad: " ", startingAt: 0)
                         + time(r.median).padding(toLength: 12, withPad: " ", startingAt: 0) + note)
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ results: [ScenarioResult]) -> String {
        let items = results.map { r -> String in
            var fields = [
                "\"id\": \"\(r.id)\"", "\"name\": \"\(r.name)\"", "\"unit\": \"\(r.unit)\"", "\"items\": \(r.items)",
                "\"medianSeconds\": \(r.median)", "\"secondsPerItem\": \(r.perItem)",
                "\"runs\": [\(r.runs.map { "\($0)" }.joined(separator: ", "))]",
            ]
            for (key, value) in r.extra.sorted(by: { $0.key < $1.key }) { fields.append("\"\(key)\": \(value)") }
            return "  {" + fields.joined(separator: ", ") + "}"
        }
        return "[\n" + items.joined(separator: ",\n") + "\n]"
    }
}
