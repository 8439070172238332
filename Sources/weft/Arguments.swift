import ArgumentParser
import Foundation
import WeftFormat
import WeftLayout

/// A command-line value that parses itself: what it expects is part of the error when it does not parse.
protocol CheckedArgument: ExpressibleByArgument {
    /// The placeholder shown in usage and in errors, such as `WxH`.
    static var valueName: String { get }
    /// What a valid value looks like, for the error message.
    static var expectation: String { get }
    /// Why `text` is not a valid value (default: ``expectation``).
    static func reason(refusing text: String) -> String
}

extension CheckedArgument {
    static func reason(refusing text: String) -> String { expectation }
}

/// `WxH`: each side a number of points >= 0, or `inf`.
struct SizeArgument: CheckedArgument, CustomStringConvertible {
    static let valueName = "WxH"
    static let expectation = "expected WxH with numbers >= 0 or inf (e.g. 375xinf)"

    let size: Size

    init(_ size: Size) {
        self.size = size
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        func side(_ part: Substring) -> Double? {
            if part == "inf" { return .infinity }
            guard let value = Double(part), value.isFinite, value >= 0 else { return nil }
            return value
        }
        guard parts.count == 2, let width = side(parts[0]), let height = side(parts[1]) else { return nil }
        size = Size(width: width, height: height)
    }

    var description: String {
        func side(_ value: Double) -> String { value.isInfinite ? "inf" : formatPoints(value) }
        return "\(side(size.width))x\(side(size.height))"
    }
}

/// Pixels per point: a finite number > 0 that ``PixelGrid`` accepts.
struct ScaleArgument: CheckedArgument, CustomStringConvertible {
    static let valueName = "scale"
    static let expectation = "expected a number > 0"

    /// PixelGrid's own reason (it also bounds the scale from above), without its "got" part.
    static func reason(refusing text: String) -> String {
        guard let value = Double(text), value > 0, let problem = PixelGrid.problem(scale: value) else { return expectation }
        return problem.range(of: ", got ").map { String(problem[..<$0.lowerBound]) } ?? problem
    }

    let scale: Double

    init(_ scale: Double) {
        self.scale = scale
    }

    init?(argument: String) {
        guard let value = Double(argument), PixelGrid.problem(scale: value) == nil else { return nil }
        scale = value
    }

    var description: String { formatPoints(scale) }
}

/// An output format of `weft layout`.
struct FormatArgument: CheckedArgument, CustomStringConvertible {
    static let valueName = "format"
    static var expectation: String {
        "expected one of " + LayoutFormat.allCases.map(\.rawValue).joined(separator: ", ")
    }

    let format: LayoutFormat

    init(_ format: LayoutFormat) {
        self.format = format
    }

    init?(argument: String) {
        guard let format = LayoutFormat(rawValue: argument) else { return nil }
        self.format = format
    }

    static var allValueStrings: [String] { LayoutFormat.allCases.map(\.rawValue) }

    var description: String { format.rawValue }
}

/// The distinct numbers of a comma-separated list, in their first order; nil when the list is empty or a part is
/// not a number in `range`.
func commaSeparatedNumbers(_ argument: String, in range: ClosedRange<Int>) -> [Int]? {
    var numbers: [Int] = []
    var seen = Set<Int>()
    for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
        guard let number = Int(part), range.contains(number) else { return nil }
        if seen.insert(number).inserted { numbers.append(number) }
    }
    return numbers.isEmpty ? nil : numbers
}

/// Thread counts for `weft bench --threads`: `1,2,4`, each from 1 to ``maximum``.
struct ThreadCounts: CheckedArgument, CustomStringConvertible {
    static let maximum = 1024
    static let valueName = "N[,N...]"
    static let expectation = "expected thread counts from 1 to 1024 separated by commas (e.g. 1,2,4)"

    let counts: [Int]

    init?(argument: String) {
        guard let counts = commaSeparatedNumbers(argument, in: 1...Self.maximum) else { return nil }
        self.counts = counts
    }

    var description: String { counts.map(String.init).joined(separator: ",") }
}

/// `--feed-sizes`: the feed sizes of the feed-size rows.
struct FeedSizes: CheckedArgument, CustomStringConvertible {
    static let maximum = 1_000_000
    static let valueName = "SIZE[,SIZE...]"
    static let expectation = "expected feed sizes from 100 to 1000000 separated by commas (e.g. 10000,100000,1000000)"

    let sizes: [Int]

    init?(argument: String) {
        guard let sizes = commaSeparatedNumbers(argument, in: 100...Self.maximum) else { return nil }
        self.sizes = sizes
    }

    var description: String { sizes.map(String.init).joined(separator: ",") }
}

/// How a value that did not parse is reported: `--min: expected WxH ..., got "10x"`, the house format.
///
/// ArgumentParser words a value it could not convert as `The value 'V' is invalid for '--flag <name>'`; the
/// value name tells which ``CheckedArgument`` refused it, and that type says what it expects.
enum ArgumentErrors {
    static let checked: [any CheckedArgument.Type] = [
        SizeArgument.self, ScaleArgument.self, FormatArgument.self, ThreadCounts.self, FeedSizes.self, TextMetrics.self,
    ]

    /// The one-line message for a value error in ArgumentParser's `message`, or nil for other errors.
    static func valueError(in message: String) -> String? {
        let prefix = "The value '"
        guard message.hasPrefix(prefix),
              let valueEnd = message.range(of: "' is invalid for '", options: .backwards)
        else { return nil }
        let value = String(message[message.index(message.startIndex, offsetBy: prefix.count)..<valueEnd.lowerBound])
        let rest = message[valueEnd.upperBound...]
        guard let nameStart = rest.firstIndex(of: "<"), let nameEnd = rest[nameStart...].firstIndex(of: ">") else {
            return nil
        }
        let flag = rest[..<nameStart].trimmingCharacters(in: .whitespaces)
        let name = String(rest[rest.index(after: nameStart)..<nameEnd])
        guard let type = checked.first(where: { $0.valueName == name }), !flag.isEmpty else { return nil }
        return "\(flag): \(type.reason(refusing: value)), got \(JSONValue.quoted(value))"
    }
}
