import ArgumentParser
import Foundation
import WeftFeed
import WeftLayout
import WeftNodes
import WeftSamples
import WeftText

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the photo feed: load, let data arrive late, scroll to the end, and report.",
        discussion: """
        Synthetic posts (the same for the same seed) in PhotoCellNodes with automatic subnode management. \
        Locations and images arrive a few milliseconds late on background threads; cells lay themselves out \
        again and their subnodes follow. The feed loads pages of 100 through batch fetching while it is \
        scrolled a third of a screen at a time.
        """
    )

    @Option(help: "Number of cells.")
    var cells: Int = 1000

    @Option(help: "Feed width in points.")
    var width: Double = 375

    @Option(help: "Seed of the synthetic posts.")
    var seed: UInt64 = 1

    @Option(help: "Write the first screen as an SVG picture to this file.")
    var svg: String?

    @Option(help: ArgumentHelp("How the cells' texts are measured: fonts (HarfBuzz, real fonts) or fixed (fixed fractions of the font size).",
                               valueName: TextMetrics.valueName))
    var textMetrics = TextMetrics.fonts

    func run() throws {
        try reportingInputErrors {
            guard cells > 0 && cells <= 1_000_000 else {
                throw InputError(description: "--cells: expected a number from 1 to 1000000, got \(cells)")
            }
            guard width.isFinite && width >= 1 && width <= 10_000 else {
                throw InputError(description: "--width: expected a number from 1 to 10000, got \(formatPoints(width))")
            }
            var options = PhotoFeedDemo.Options()
            options.cells = cells
            options.width = width
            options.seed = seed
            options.textMeasurer = try textMeasurer(textMetrics, fontDirectories: [])
            let demo = PhotoFeedDemo(options: options)
            let interactive = isatty(STDERR_FILENO) == 1
            let (feed, report) = try demo.run { loaded, offset, height in
                guard interactive else { return }
                let percent = height > 0 ? Int(100 * offset / height) : 0
                printError("\rweft demo: \(loaded)/\(options.cells) cells loaded, scrolled \(percent)%   ", newline: false)
            }
            if interactive { printError("\r" + String(repeating: " ", count: 60) + "\r", newline: false) }
            print(DemoReport.table(report))
            if let svg {
                let picture = try ApplyQueue.main.sync { () throws -> String in
                    try feed.scroll(to: 0)
                    return FirstScreenPicture.render(feed)
                }
                guard FileManager.default.createFile(atPath: svg, contents: Data(picture.utf8)) else {
                    throw InputError(description: "--svg: cannot write \(svg)")
                }
                print("first screen written to \(svg)")
            }
        }
    }
}

/// The demo's table.
enum DemoReport {
    static func table(_ r: PhotoFeedDemo.Report) -> String {
        let f = r.feed
        let n = r.nodes
        let q = r.applyQueue
        let lookups = n.cacheHits + n.cacheMisses
        let rows: [(String, String)] = [
            ("cells laid out in the background", "\(grouped(f.cellsLaidOut)) in \(f.commits) commits, \(grouped(Int(f.cellsPerSecond))) cells/s"),
            ("cells that laid themselves out", "\(grouped(max(0, n.appliedPasses - f.cellsLaidOut))) passes (locations and images arriving late)"),
            ("apply-queue turns", "\(grouped(q.turns)), longest \(ms(q.longest)) (processor time \(ms(q.longestProcessorTime))), median \(ms(q.median))"),
            ("diffs applied", "\(grouped(n.insertions)) insertions, \(grouped(n.removals)) removals, \(grouped(n.moves)) moves"),
            ("layout cache", "\(grouped(n.cacheHits)) hits of \(grouped(lookups)) lookups (\(lookups > 0 ? 100 * n.cacheHits / lookups : 0)%)"),
            ("text cache", textCache(n)),
            ("batch fetches", "\(f.batchFetches)"),
            ("scroll steps", "\(grouped(r.scrollSteps)) to the end of \(grouped(Int(r.contentHeight))) points"),
            ("wall time", String(format: "%.2f s on %d cores", r.seconds, r.cores)),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        let title = "weft demo: \(grouped(r.options.cells)) photo cells, width \(formatPoints(r.options.width)), seed \(r.options.seed)"
        return ([title] + rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 })
            .joined(separator: "\n")
    }

    /// The shaped-run cache's hit rate, or why there is none.
    static func textCache(_ n: NodeStatistics.Snapshot) -> String {
        let lookups = n.textCacheHits + n.textCacheMisses
        guard lookups > 0 else { return "not used (fixed metrics)" }
        return "\(grouped(n.textCacheHits)) hits of \(grouped(lookups)) texts measured (\(100 * n.textCacheHits / lookups)%)"
    }

    static func ms(_ seconds: Double) -> String {
        String(format: "%.2f ms", seconds * 1000)
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (value < 0 ? "-" : "") + out
    }
}

/// An SVG picture of the cells on the first screen: images as filled boxes, text as its lines (as text nodes
/// draw themselves in layout pictures), placeholders dashed.
enum FirstScreenPicture {
    static func render(_ feed: FeedNode) -> String {
        let width = feed.width
        let height = feed.viewportHeight
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(formatPoints(width))" height="\(formatPoints(height))" \
        viewBox="0 0 \(formatPoints(width)) \(formatPoints(height))" font-family="sans-serif">
          <rect width="100%" height="100%" fill="#ffffff"/>

        """
        var item = 0
        while let frame = feed.frameOfItem(at: ItemPath(item: item)), frame.minY < height {
            defer { item += 1 }
            guard let cell = feed.cellNode(at: ItemPath(item: item)), let layout = cell.appliedLayout else { continue }
            out += "  <rect x=\"0\" y=\"\(formatPoints(frame.minY))\" width=\"\(formatPoints(frame.size.width))\" "
            out += "height=\"\(formatPoints(frame.size.height))\" fill=\"none\" stroke=\"#cbd5e0\"/>\n"
            for entry in layout.allFrames() {
                let f = entry.frame
                let x = f.origin.x
                let y = f.origin.y + frame.minY
                if let image = entry.element as? ImageNode {
                    out += "  <rect x=\"\(formatPoints(x))\" y=\"\(formatPoints(y))\" width=\"\(formatPoints(f.size.width))\" "
                    out += "height=\"\(formatPoints(f.size.height))\" fill=\"#bee3f8\" stroke=\"#3182ce\"/>\n"
                    out += "  <text x=\"\(formatPoints(x + 4))\" y=\"\(formatPoints(y + 14))\" font-size=\"10\" fill=\"#2c5282\">"
                    out += "\(escape(image.image?.name ?? ""))</text>\n"
                } else if let text = entry.element as? TextNode {
                    out += text.svgContent(in: Rect(x: x, y: y, width: f.size.width, height: f.size.height)).elements
                } else if entry.element is Spacer, f.size.width > 0, f.size.height > 0 {
                    out += "  <rect x=\"\(formatPoints(x))\" y=\"\(formatPoints(y))\" width=\"\(formatPoints(f.size.width))\" "
                    out += "height=\"\(formatPoints(f.size.height))\" fill=\"#edf2f7\" stroke=\"#a0aec0\" stroke-dasharray=\"4 3\"/>\n"
                }
            }
        }
        return out + "</svg>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
