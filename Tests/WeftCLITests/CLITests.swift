import Foundation
import Testing

/// Runs the `weft` executable built next to the test bundle.
struct Weft {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("weft")

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `weft` with `arguments`, `stdin` as its standard input, and its output collected in files.
    ///
    /// Files, not pipes: a child that exits before reading its input (a refused option) cannot kill the test
    /// process with SIGPIPE, and a child that writes much to standard error cannot block on a full pipe while
    /// the test waits on standard output.
    static func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("weft-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ["in", "out", "err"].map { directory.appendingPathComponent($0) }
        try Data((stdin ?? "").utf8).write(to: files[0])
        for file in files[1...] { try Data().write(to: file) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.standardInput = try FileHandle(forReadingFrom: files[0])
        process.standardOutput = try FileHandle(forWritingTo: files[1])
        process.standardError = try FileHandle(forWritingTo: files[2])
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: files[1]), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: files[2]), as: UTF8.self))
    }
}

@Suite("weft layout")
struct CLITests {
    @Test("Lays out a document and prints flat frames")
    func flat() throws {
        let result = try Weft.run(["layout", "Examples/layouts/photo-cell.json", "--min", "375x0", "--max", "375xinf", "--format", "flat"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""cell": [0, 0, 375, 511]"#))
        #expect(result.stdout.contains(#""location": [60, 31, 90, 15]"#))
    }

    @Test("Reads standard input and prints every format")
    func formats() throws {
        let document = #"{"type": "center", "id": "c", "child": {"type": "box", "id": "b", "size": [10, 20]}}"#
        for format in ["json", "flat", "ascii", "svg"] {
            let result = try Weft.run(["layout", "-", "--max", "100x100", "--format", format], stdin: document)
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(!result.stdout.isEmpty)
        }
        let flat = try Weft.run(["layout", "-", "--max", "100x100", "--format", "flat"], stdin: document)
        // Centered in 100x100: (100 - 10) / 2 = 45, (100 - 20) / 2 = 40.
        #expect(flat.stdout == "{\n  \"c\": [0, 0, 100, 100],\n  \"b\": [45, 40, 10, 20]\n}\n")
        let svg = try Weft.run(["layout", "-", "--max", "100x100", "--format", "svg"], stdin: document)
        #expect(svg.stdout.hasPrefix("<svg"))
        #expect(svg.stdout.contains(">b</text>"))
    }

    @Test("A max of 2e7 is unbounded, as ASPointsValidForSize has it (valid below 1e7)")
    func maxAboveSizeLimit() throws {
        // A box measures 0x0 under a max that is not a valid size (ASDisplayNode's calculateSizeThatFits).
        let box = try Weft.run(["layout", "-", "--max", "100x2e7", "--format", "flat"], stdin: #"{"type": "box", "id": "b"}"#)
        #expect(box.stdout == "{\n  \"b\": [0, 0, 0, 0]\n}\n")
        // The center spec's height is undefined under 2e7, so it takes its child's 10: 100 x 10, the child at
        // (round((100 - 10) / 2), 0).
        let document = #"{"type": "center", "id": "c", "child": {"type": "box", "id": "b", "size": [10, 10]}}"#
        let center = try Weft.run(["layout", "-", "--max", "100x2e7", "--format", "flat"], stdin: document)
        #expect(center.stdout == "{\n  \"c\": [0, 0, 100, 10],\n  \"b\": [45, 0, 10, 10]\n}\n")
    }

    func expectRefused(_ arguments: [String], stdin: String? = nil, message: String) throws {
        let result = try Weft.run(arguments, stdin: stdin)
        #expect(result.status == 2, "\(arguments): status \(result.status)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "weft: \(message)\n")
    }

    @Test("Bad input exits with status 2 and one line naming the path and reason")
    func badInput() throws {
        let box = #"{"type": "box"}"#
        try expectRefused(["layout", "-"], stdin: #"{"type": "box", "style": {"flexGrow": -1}}"#,
                          message: "root.style.flexGrow: expected a number >= 0, got -1")
        try expectRefused(["layout", "-"], stdin: #"{"type": "box""#,
                          message: "root: malformed JSON at line 1, column 15: expected ',' or '}' after a member, found the end of the text")
        try expectRefused(["layout", "-", "--min", "10x"], stdin: box,
                          message: #"--min: expected WxH with numbers >= 0 or inf (e.g. 375xinf), got "10x""#)
        // A negative value after a space is a value, not an option: the same message as after "=".
        for arguments in [["--min", "-1x0"], ["--min=-1x0"]] {
            try expectRefused(["layout", "-"] + arguments, stdin: box,
                              message: #"--min: expected WxH with numbers >= 0 or inf (e.g. 375xinf), got "-1x0""#)
        }
        try expectRefused(["layout", "-", "--scale", "-2"], stdin: box, message: #"--scale: expected a number > 0, got "-2""#)
        try expectRefused(["layout", "-", "--min", "50x0", "--max", "20x20"], stdin: box,
                          message: "--min/--max: min.width 50 is above max.width 20")
        try expectRefused(["layout", "-", "--scale", "0"], stdin: box, message: #"--scale: expected a number > 0, got "0""#)
        try expectRefused(["layout", "-", "--format", "png"], stdin: box,
                          message: #"--format: expected one of json, flat, ascii, svg, got "png""#)
        try expectRefused(["layout", "no/such/file.json"], message: "no/such/file.json: cannot read the file")
    }

    /// The child refuses its options before reading standard input; a large input it never reads must not
    /// break the test run (SIGPIPE), however often it happens.
    @Test("A refused command that never reads its input is reported, every time")
    func unreadInput() throws {
        let large = #"{"type": "stack", "children": ["# + Array(repeating: #"{"type": "box"}"#, count: 20_000).joined(separator: ", ") + "]}"
        for _ in 0..<50 {
            try expectRefused(["layout", "-", "--format", "png"], stdin: large,
                              message: #"--format: expected one of json, flat, ascii, svg, got "png""#)
        }
    }

    /// A child that writes more to standard error than a pipe holds (64 KiB) still finishes and is read whole.
    @Test("Much output on standard error does not block the run")
    func largeStandardError() throws {
        // (An option's value is echoed whole; an unknown property name no longer is: it is clipped to 64 characters.)
        let name = String(repeating: "n", count: 100_000)
        let result = try Weft.run(["layout", "-", "--format", name], stdin: #"{"type": "box"}"#)
        #expect(result.status == 2)
        #expect(result.stderr.utf8.count > 65_536, "\(result.stderr.utf8.count) bytes")
    }
}

/// The worked examples of `docs/layout-format.md`: each command, run on the JSON above it, prints exactly the
/// output shown.
@Suite("Worked examples in docs/layout-format.md")
struct DocumentationExampleTests {
    struct Example: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var arguments: [String]
        var output: String
        var testDescription: String { name }
    }

    static var examples: [Example] {
        let url = Weft.repository.appendingPathComponent("docs/layout-format.md")
        guard let doc = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var examples: [Example] = []
        var rest = Substring(doc)
        while let marker = rest.range(of: "<!-- example: ") {
            rest = rest[marker.upperBound...]
            guard let nameEnd = rest.range(of: " -->") else { break }
            let name = String(rest[..<nameEnd.lowerBound])
            guard let jsonStart = rest.range(of: "```json\n"),
                  let jsonEnd = rest[jsonStart.upperBound...].range(of: "```"),
                  let command = rest[jsonEnd.upperBound...].range(of: "$ weft layout "),
                  let lineEnd = rest[command.upperBound...].range(of: "\n"),
                  let outputEnd = rest[lineEnd.upperBound...].range(of: "```") else { break }
            let json = String(rest[jsonStart.upperBound..<jsonEnd.lowerBound])
            var arguments = rest[command.upperBound..<lineEnd.lowerBound].split(separator: " ").map(String.init)
            arguments[0] = "-"
            let output = String(rest[lineEnd.upperBound..<outputEnd.lowerBound])
            examples.append(Example(name: name, json: json, arguments: ["layout"] + arguments, output: output))
            rest = rest[outputEnd.upperBound...]
        }
        return examples
    }

    @Test("There are worked examples")
    func present() {
        #expect(Self.examples.count >= 5)
    }

    @Test("weft layout reproduces the worked example", arguments: examples)
    func example(_ example: Example) throws {
        let result = try Weft.run(example.arguments, stdin: example.json)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == example.output)
    }
}

@Suite("weft demo")
struct DemoTests {
    /// Every cell ends with five insertions (username, comments, then location, avatar and photo as they
    /// arrive) and nothing is ever removed or moved: the table must say so.
    @Test("The demo loads, scrolls to the end and reports")
    func demo() throws {
        let result = try Weft.run(["demo", "--cells", "150", "--svg", "/tmp/weft-demo-test.svg"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.hasPrefix("weft demo: 150 photo cells, width 375, seed 1"))
        #expect(out.contains("diffs applied                     750 insertions, 0 removals, 0 moves"), "\(out)")
        #expect(out.contains("cells laid out in the background  150 in 2 commits"), "\(out)")
        #expect(out.contains("batch fetches                     1"), "\(out)")
        #expect(out.contains("first screen written to /tmp/weft-demo-test.svg"))
        let svg = try String(contentsOfFile: "/tmp/weft-demo-test.svg", encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("photo://0"))
    }

    @Test("Bad demo options exit with status 2")
    func badOptions() throws {
        let result = try Weft.run(["demo", "--cells", "0"])
        #expect(result.status == 2)
        #expect(result.stderr == "weft: --cells: expected a number from 1 to 1000000, got 0\n")
    }

    /// Each list option names its own expectation (both are lists of numbers, each with its own range).
    @Test("Bad bench lists exit with status 2 and name their own option's range")
    func badBenchLists() throws {
        let sizes = try Weft.run(["bench", "--only", "nothing", "--feed-sizes", "10000,50"])
        #expect(sizes.status == 2)
        #expect(sizes.stderr == "weft: --feed-sizes: expected feed sizes from 100 to 1000000 separated by commas "
            + "(e.g. 10000,100000,1000000), got \"10000,50\"\n")
        let threads = try Weft.run(["bench", "--only", "nothing", "--threads", "2,,4"])
        #expect(threads.status == 2)
        #expect(threads.stderr == "weft: --threads: expected thread counts from 1 to 1024 separated by commas (e.g. 1,2,4), got \"2,,4\"\n")
    }
}
