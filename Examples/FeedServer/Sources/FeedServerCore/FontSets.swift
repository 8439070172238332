import WeftFormat
import WeftNodes
import WeftText

/// The font sets a request may measure its text with, by name (the query's `fonts`): ``defaultName``, the
/// standard fonts (Debian's), and the sets configured at start-up with `--font-set NAME=DIR`, each the
/// standard fonts plus the fonts under its directory. Each set has a measurer, and a shaping cache, of its own,
/// bounded by `--text-cache-bytes`.
///
/// Threading: a value, read by every layout thread; measurers MAY be called from any thread.
public struct FontSets: Sendable {
    /// The name of the standard set, always present.
    public static let defaultName = "default"

    /// The measurer of each set, by name.
    public private(set) var measurers: [String: any TextMeasurer]

    /// The standard set alone, with a shaping cache of `textCacheBytes` (WeftNodes' standard measurer, whose
    /// cache is 64 MiB, where the standard fonts cannot be read).
    public init(textCacheBytes: Int = 16 << 20) {
        if let registry = try? FontRegistry.standard() {
            measurers = [Self.defaultName: FontMeasurer(registry: registry, cacheCapacity: textCacheBytes)]
        } else {
            measurers = [Self.defaultName: TextNode.standardMeasurer]
        }
    }

    /// The standard set and one set per entry of `directories` (name to directory), each with a shaping cache
    /// of `textCacheBytes`; an error names the set and the file or directory that could not be read. An entry
    /// with a font file's name that is not a regular file (a named pipe, a device, a socket) or is too large is
    /// skipped, and `warn` gets a line naming the set and the entry.
    public static func load(
        _ directories: [String: String], textCacheBytes: Int = 16 << 20, warn: (String) -> Void = { _ in }
    ) throws(ConfigurationError) -> FontSets {
        var sets = FontSets(textCacheBytes: textCacheBytes)
        for (name, directory) in directories.sorted(by: { $0.key < $1.key }) {
            var registry = (try? FontRegistry.standard()) ?? FontRegistry()
            do throws(TextError) {
                try registry.register(directory: directory) { skipped in
                    warn("font-set \(name)=\(directory): \(skipped.path): \(skipped.reason); skipped")
                }
            } catch {
                let place = error.path == directory ? "" : " \(error.path):"
                throw ConfigurationError(description: "font-set \(name)=\(directory):\(place) \(error.reason)")
            }
            sets.measurers[name] = FontMeasurer(registry: registry, cacheCapacity: textCacheBytes)
        }
        return sets
    }

    /// The names of the sets, sorted.
    public var names: [String] { measurers.keys.sorted() }

    /// Why a request may not name `name`, or nil when it is a configured set.
    public func problem(naming name: String) -> String? {
        guard measurers[name] == nil else { return nil }
        let known = names.map { JSONValue.quoted($0) }.joined(separator: ", ")
        return "expected one of the configured font sets (\(known)), got \(JSONValue.quoted(name))"
    }

    /// Whether `name` can name a font set: 1 to 64 ASCII letters, digits, `-` or `_` (so that it can stand in a
    /// cache key's first line and a metric's label).
    public static func isValidName(_ name: some StringProtocol) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
