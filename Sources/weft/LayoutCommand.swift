import ArgumentParser
import Foundation
import WeftFormat
import WeftLayout
import WeftNodes
import WeftText

struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Lay out a JSON layout document and print the result.",
        discussion: """
        The document format is described in docs/layout-format.md. Bad input exits with status 2 and one \
        line naming the JSON path and the reason.
        """
    )

    @Argument(help: "The layout document, or - for standard input.")
    var file: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The minimum size.", valueName: SizeArgument.valueName))
    var min = SizeArgument(.zero)

    @Option(parsing: .unconditional,
            help: ArgumentHelp("The maximum size; inf for unbounded (e.g. 375xinf), as is 1e7 or more.", valueName: SizeArgument.valueName))
    var max = SizeArgument(Size(width: .infinity, height: .infinity))

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Pixels per point; sizes and positions are rounded to this grid.", valueName: ScaleArgument.valueName))
    var scale = ScaleArgument(2)

    @Option(help: ArgumentHelp("Output: json (the layout tree), flat (id -> [x, y, w, h]), ascii or svg.",
                               valueName: FormatArgument.valueName))
    var format = FormatArgument(.json)

    @Option(help: ArgumentHelp("How text leaves are measured: fonts (HarfBuzz, real fonts) or fixed (fixed fractions of the font size, the same everywhere).",
                               valueName: TextMetrics.valueName))
    var textMetrics = TextMetrics.fonts

    @Option(name: .customLong("font-dir"),
            help: ArgumentHelp("Register the fonts (.ttf, .otf, .ttc) in this directory and below, beside the standard ones; repeatable.",
                               valueName: "dir"))
    var fontDirectories: [String] = []

    func run() throws {
        try reportingInputErrors {
            let range: SizeRange
            do throws(LayoutError) {
                range = try SizeRange.validated(min: min.size, max: max.size)
            } catch {
                throw InputError(description: "--min/--max: \(error.reason)")
            }
            let (scaleValue, outputFormat) = (scale.scale, format.format)
            let measurer = try textMeasurer(textMetrics, fontDirectories: fontDirectories)
            let text = try readDocument(file)
            // Decoding and layout recurse once per element level: give them a thread with room for the
            // deepest document the decoder accepts.
            let output = onLargeStack(LayoutDecoder.recommendedStackSize) { () -> Result<String, LayoutError> in
                do throws(LayoutError) {
                    let document = try LayoutDecoder.withNodes(textMeasurer: measurer).decode(text)
                    let layout = try Layout.compute(document.root, in: range, scale: scaleValue)
                    return .success(outputFormat.render(layout))
                } catch {
                    return .failure(error)
                }
            }
            switch output {
            case .success(let rendered): print(rendered, terminator: "")
            case .failure(let error): throw InputError(description: error.description)
            }
        }
    }
}

/// Runs `body` on a new thread with a `stackSize`-byte stack and returns its result.
func onLargeStack<T: Sendable>(_ stackSize: Int, _ body: @escaping @Sendable () -> Result<T, LayoutError>) -> Result<T, LayoutError> {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
    return box.value
}

/// A result handed from a thread to the one waiting for it.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: written by the thread before it signals, read after the wait.
    var value: Result<T, LayoutError> = .failure(LayoutError("the layout thread did not finish"))
}

/// The text of `path`, or of standard input for `-`.
func readDocument(_ path: String) throws -> String {
    let data: Data
    if path == "-" {
        data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw InputError(description: "\(path): cannot read the file")
        }
        data = contents
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw InputError(description: "\(path): the file is not UTF-8 text")
    }
    return text
}

func printError(_ line: String, newline: Bool = true) {
    FileHandle.standardError.write(Data((line + (newline ? "\n" : "")).utf8))
}
