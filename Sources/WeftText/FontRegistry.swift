/// The fonts a measurer may use: registered faces by family, weight and slant, aliases, and the fallback
/// families to try, per script, for characters the requested face has no glyph for.
///
/// A value: build one (``standard()`` for the Debian fonts, or an empty one and ``register(file:)``), then
/// give it to a ``FontMeasurer``, which keeps its own copy. Copies share the mapped font files. A server
/// that matches several apps' typefaces makes one registry and one measurer per font set.
///
/// Font choice for a run: its family (or ``defaultFamily``) and the face nearest its weight (CSS's font
/// matching: for 400 to 500 the weights up to 500 first, then lighter, then heavier; below 400 lighter
/// first; above 500 heavier first) and slant (an italic face if the family has one). Then, for each
/// grapheme cluster that face has no glyph for, the fallback families of the cluster's script, then the
/// ``FontScript/common`` ones, each in the nearest face; emoji presentation sequences try the
/// ``FontScript/emoji`` families first. A cluster that no face covers stays in the run's face (drawn as
/// its missing-glyph box, measured with that glyph's advance).
public struct FontRegistry: Sendable {
    struct Entry: Sendable {
        var face: FontFace
        var font: ShapingFont
    }

    private(set) var entries: [Entry] = []
    /// Lowercased family name to entry indices.
    private var byFamily: [String: [Int]] = [:]
    /// Registered family names as spelled, to their lowercased keys (so that the usual lookup lowercases nothing).
    private var familyKeys: [String: String] = [:]
    /// The registered faces, as "path#index", to skip faces registered again.
    private var registered: Set<String> = []
    /// Lowercased alias to lowercased family.
    private var aliases: [String: String] = [:]
    private var fallbacks: [FontScript: [String]] = [:]
    /// The family of runs whose style names none (nil: the first family registered).
    public var defaultFamily: String?

    /// An empty registry.
    public init() {}

    /// Every registered face, in registration order.
    public var faces: [FontFace] { entries.map(\.face) }

    /// The registered family names, sorted.
    public var families: [String] {
        Array(Set(entries.map(\.face.family))).sorted()
    }

    /// Registers every face of the font file at `path` (TTF, OTF, or a TTC/OTC collection) and returns them.
    /// A face already registered from the same file is not added again. Only a regular file of at most
    /// 256 MiB is opened (``FontFile/maximumSize``); anything else (a named pipe, a device) is an error
    /// naming it, never a wait.
    @discardableResult
    public mutating func register(file path: String) throws(TextError) -> [FontFace] {
        let (infos, fonts) = try FontFile.withChecked(path) { (source) throws(TextError) in
            let infos = try FontFile.faces(at: source, path: path)
            return (infos, try ShapingFont.open(source: source, path: path, indices: infos.map(\.index)))
        }
        var added: [FontFace] = []
        for (info, font) in zip(infos, fonts) {
            let face = FontFace(family: info.family, styleName: info.styleName, weight: info.weight, isItalic: info.isItalic,
                                path: path, index: info.index, unitsPerEm: Int(font.unitsPerEm),
                                ascender: font.ascender, descender: font.descender, lineGap: font.lineGap)
            guard registered.insert("\(path)#\(info.index)").inserted else { continue }
            familyKeys[face.family] = face.family.lowercased()
            byFamily[face.family.lowercased(), default: []].append(entries.count)
            entries.append(Entry(face: face, font: font))
            added.append(face)
        }
        return added
    }

    /// Registers every font file (`.ttf`, `.otf`, `.ttc`, `.otc`) in the directory at `path` and below it, in
    /// path order. An entry with a font file's name that is not a regular file (a named pipe, a device, a
    /// socket, a link to one) or is larger than 256 MiB is skipped: `skipped` gets an error naming it, in path
    /// order, and the rest are registered. A font file that cannot be read or is not a font is an error naming
    /// it, and then nothing is registered.
    @discardableResult
    public mutating func register(directory path: String, skipped: (TextError) -> Void) throws(TextError) -> [FontFace] {
        let (files, skippedEntries) = try FontDirectory.fontFiles(under: path)
        var copy = self
        var added: [FontFace] = []
        for file in files { added += try copy.register(file: file) }
        self = copy
        skippedEntries.forEach(skipped)
        return added
    }

    /// Makes `alias` name the registered family `family` (`"Helvetica"` for `"Noto Sans"`).
    public mutating func setAlias(_ alias: String, for family: String) throws(TextError) {
        let target = family.lowercased()
        guard byFamily[target] != nil else { throw unknownFamily(family, path: "family") }
        aliases[alias.lowercased()] = target
    }

    /// Sets the families to try, in order, for characters of `script` that a run's own face lacks.
    public mutating func setFallback(_ families: [String], for script: FontScript) {
        fallbacks[script] = families
    }

    /// The fallback families of `script`.
    public func fallback(for script: FontScript) -> [String] {
        fallbacks[script] ?? []
    }

    /// The face a run in `family` (nil: the default family) at `weight` and slant would use.
    public func face(family: String?, weight: Int = 400, isItalic: Bool = false) throws(TextError) -> FontFace {
        entries[try resolve(family: family, weight: weight, isItalic: isItalic, path: "family")].face
    }

    /// The entry index of the face for `family` (nil: the default), `weight` and slant.
    func resolve(family: String?, weight: Int, isItalic: Bool, path: String) throws(TextError) -> Int {
        guard let name = family ?? defaultFamily ?? entries.first?.face.family else {
            throw TextError("no fonts are registered", path: path, kind: .font)
        }
        guard let candidates = candidates(of: name) else { throw unknownFamily(name, path: path) }
        return nearest(candidates, weight: weight, isItalic: isItalic)
    }

    /// The entries of a family (by name or alias), or nil when none is registered.
    private func candidates(of name: String) -> [Int]? {
        if let key = familyKeys[name], let found = byFamily[key] { return found }
        let key = name.lowercased()
        return byFamily[key] ?? aliases[key].flatMap { byFamily[$0] }
    }

    /// The entry indices to try for characters of `script` after a run's own face: the script's fallback
    /// families, then the common ones, each in its nearest face, without repeats or unknown families.
    func fallbackChain(for script: FontScript, weight: Int, isItalic: Bool) -> [Int] {
        var chain: [Int] = []
        for name in fallback(for: script) + fallback(for: .common) {
            guard let candidates = candidates(of: name) else { continue }
            let index = nearest(candidates, weight: weight, isItalic: isItalic)
            if !chain.contains(index) { chain.append(index) }
        }
        return chain
    }

    /// CSS Fonts' matching over one family's entries: slant first, then weight (the first of equals).
    func nearest(_ candidates: [Int], weight: Int, isItalic: Bool) -> Int {
        let anySameSlant = candidates.contains { entries[$0].face.isItalic == isItalic }
        var best = candidates.first ?? 0  // families always have a face
        var bestRank = (Int.max, Int.max)
        for index in candidates where !anySameSlant || entries[index].face.isItalic == isItalic {
            let rank = Self.weightRank(entries[index].face.weight, for: weight)
            if rank < bestRank {
                best = index
                bestRank = rank
            }
        }
        return best
    }

    /// Orders candidate weights for a wanted weight as CSS does (lower ranks first).
    static func weightRank(_ candidate: Int, for wanted: Int) -> (Int, Int) {
        if candidate == wanted { return (0, 0) }
        if (400...500).contains(wanted) {
            if candidate > wanted && candidate <= 500 { return (1, candidate - wanted) }
            if candidate < wanted { return (2, wanted - candidate) }
            return (3, candidate - wanted)
        }
        if wanted < 400 {
            return candidate < wanted ? (1, wanted - candidate) : (2, candidate - wanted)
        }
        return candidate > wanted ? (1, candidate - wanted) : (2, wanted - candidate)
    }

    private func unknownFamily(_ name: String, path: String) -> TextError {
        // (A name over 64 Unicode scalars is clipped: one of a megabyte was quoted whole.)
        let scalars = name.unicodeScalars
        let quoted = scalars.count <= 64
            ? name : "\(String(scalars.prefix(64)))... (\(scalars.count - 64) more characters)"
        return TextError("no font family \"\(quoted)\" is registered (registered: \(families.joined(separator: ", ")))",
                         path: path, kind: .font)
    }

    /// The shaping font of entry `index`.
    func font(_ index: Int) -> ShapingFont { entries[index].font }
}
