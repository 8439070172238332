import WeftFormat
import WeftLayout

/// The width, format, screen scale and font set that a document, or every cell of a page, is laid out with.
public struct LayoutOptions: Sendable, Equatable {
    /// The width of the range `width x unbounded` (default 375).
    public var width: Double = 375
    /// The output format (default flat).
    public var format: OutputFormat = .flat
    /// The screen's pixels per point, which sizes and positions are rounded to (default 2).
    public var scale: Double = 2
    /// The name of the font set text is measured with (default ``FontSets/defaultName``).
    public var fontSet: String = FontSets.defaultName

    /// The widest width accepted.
    public static let widest: Double = 100_000
    /// The screen scales accepted: those of phones and tablets.
    public static let scales: [Double] = [1, 2, 3]

    public init(width: Double = 375, format: OutputFormat = .flat, scale: Double = 2,
                fontSet: String = FontSets.defaultName) {
        self.width = width
        self.format = format
        self.scale = scale
        self.fontSet = fontSet
    }

    /// Options from the query parameters `width`, `format`, `scale` and `fonts` (each optional), over the
    /// defaults. A font set's name is checked here for its spelling only; whether it is configured is the
    /// service's to say (``LayoutService/fontSetProblem(_:)``).
    public init(queryWidth: Substring?, queryFormat: Substring?, queryScale: Substring? = nil,
                queryFonts: Substring? = nil) throws(LayoutError) {
        if let text = queryScale {
            guard let scale = Double(text), Self.scales.contains(scale) else {
                throw LayoutError("expected 1, 2 or 3 (pixels per point), got \(JSONValue.quoted(String(text)))",
                                  path: "query scale")
            }
            self.scale = scale
        }
        if let text = queryFonts {
            guard FontSets.isValidName(text) else {
                throw LayoutError("expected a font set's name (letters, digits, '-' or '_'), got \(JSONValue.quoted(String(text)))",
                                  path: "query fonts")
            }
            fontSet = String(text)
        }
        if let text = queryWidth {
            guard let width = Double(text), Self.accepts(width) else {
                throw LayoutError(Self.widthReason(got: JSONValue.quoted(String(text))), path: "query width")
            }
            self.width = width
        }
        if let text = queryFormat {
            guard let format = OutputFormat(rawValue: String(text)) else {
                throw LayoutError(Self.formatReason(got: JSONValue.quoted(String(text))), path: "query format")
            }
            self.format = format
        }
    }

    static func accepts(_ width: Double) -> Bool {
        width.isFinite && width > 0 && width <= widest
    }

    static func widthReason(got: String) -> String {
        "expected a number > 0 and at most \(formatPoints(widest)), got \(got)"
    }

    static func formatReason(got: String) -> String {
        "expected \"flat\" or \"tree\", got \(got)"
    }
}

/// A request body read as JSON: one layout document, or a page of cells, each to be decoded on its own.
///
/// A page is an object with a `cells` member (an array of elements) and optionally `width` and `format`,
/// which take the place of the query's; anything else is a document. Problems name the member: `width`,
/// `format`, `cells`, or `cells[3]...` inside a cell.
struct LayoutInput {
    struct Cell {
        enum Content {
            /// The cell's JSON text as received, parsed only if it is not in the cache.
            case text(String)
            /// The cell already parsed (when the whole body had to be).
            case parsed(JSONValue)
        }

        var content: Content
        /// Where the cell is, for error messages: `root` for a document, `cells[i]` in a page.
        var path: String

        /// The cell's cache key content: its text as received, or the canonical text of its parsed value. (A
        /// text can only equal a canonical text of the same value: the two kinds of key never mix cells up.)
        var keyContent: String {
            switch content {
            case .text(let text): return text
            case .parsed(let value): return value.canonicalText
            }
        }
    }

    var isPage: Bool
    var options: LayoutOptions
    var cells: [Cell]

    static let pageMembers = ["width", "format", "cells"]

    /// The JSON nesting a body may have when its elements are at most `maxElementDepth` deep: the decoder's
    /// own allowance (two JSON levels per element level, plus room for styles), plus the two levels of a
    /// page's wrapper. A page's cell, inside the wrapper, may have two levels less.
    static func jsonDepth(forElementDepth maxElementDepth: Int, isPageCell: Bool = false) -> Int {
        maxElementDepth * 2 + 8 + (isPageCell ? 0 : 2)
    }

    /// The input from a body split by ``BodyScanner``, its cells still unparsed.
    init(_ split: BodyScanner.Split, defaults: LayoutOptions) {
        isPage = split.isPage
        options = defaults
        options.width = split.width ?? defaults.width
        options.format = split.format ?? defaults.format
        cells = split.cells.enumerated().map { i, text in
            Cell(content: .text(text), path: split.isPage ? "cells[\(i)]" : "root")
        }
    }

    init(isPage: Bool, options: LayoutOptions, cells: [Cell]) {
        self.isPage = isPage
        self.options = options
        self.cells = cells
    }

    /// Parses `text` with `parser` (whose limits suit the server's: see ``jsonDepth(forElementDepth:isPageCell:)``).
    ///
    /// Parsing keeps no stack of its own (the parser is iterative), but the parsed value is freed
    /// recursively: parse on a layout thread.
    static func parse(_ text: String, defaults: LayoutOptions, parser: JSONParser) throws(LayoutError) -> LayoutInput {
        let value = try parser.parse(text)
        guard case .object(let object) = value, object["cells"] != nil else {
            return LayoutInput(isPage: false, options: defaults, cells: [Cell(content: .parsed(value), path: "root")])
        }
        var options = defaults
        for key in object.keys where !pageMembers.contains(key) {
            throw LayoutError("unknown member of a page; expected \"width\", \"format\" or \"cells\"", path: key)
        }
        if let width = object["width"] {
            guard case .number(let number) = width, LayoutOptions.accepts(number) else {
                throw LayoutError(LayoutOptions.widthReason(got: width.summary), path: "width")
            }
            options.width = number
        }
        if let format = object["format"] {
            guard case .string(let name) = format, let parsed = OutputFormat(rawValue: name) else {
                throw LayoutError(LayoutOptions.formatReason(got: format.summary), path: "format")
            }
            options.format = parsed
        }
        guard case .array(let items)? = object["cells"] else {
            throw LayoutError("expected an array of elements, got \((object["cells"] ?? .null).summary)", path: "cells")
        }
        let cells = items.enumerated().map { Cell(content: .parsed($0.element), path: "cells[\($0.offset)]") }
        return LayoutInput(isPage: true, options: options, cells: cells)
    }
}
