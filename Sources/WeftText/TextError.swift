/// Why text could not be measured or a font could not be registered: what is wrong and where.
///
/// `path` names the place in the measured text (`runs[1].style.size`) or the font file; `reason` says what was
/// expected and what came. No error path in WeftText traps: every bad value that can reach it from input ends
/// here.
public struct TextError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What sort of problem this is, for callers that answer differently (a server: 400, 422 or 500).
    public enum Kind: String, Hashable, Sendable {
        /// A value is wrong: a size <= 0 or NaN, a feature tag that is not four letters, invalid UTF-8...
        case invalid
        /// A font is missing or unusable: an unknown family, an unreadable or malformed font file, no fonts.
        case font
        /// The input is valid but exceeds a configured limit (the text's length).
        case limit
    }

    public var kind: Kind
    public var path: String
    public var reason: String

    public init(_ reason: String, path: String = "", kind: Kind = .invalid) {
        self.reason = reason
        self.path = path
        self.kind = kind
    }

    /// One line: `path: reason`.
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

    /// A number as the errors print it: `12`, `12.5`, `nan`, `-inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
