import WeftLayout

/// A layout document read from JSON: the root element and the identifiers it holds.
public struct LayoutDocument: Sendable {
    public let root: any LayoutElement
    /// Every `"id"` in the document, in document order.
    public let identifiers: [String]
    /// The number of elements in the document.
    public let elementCount: Int
}

/// Reads one kind of leaf element from its JSON members (the common ones, `type`, `id` and `style`, are
/// already read into `common`; ask `members` for the rest, unknown ones are refused afterwards).
public protocol LeafDecoder: Sendable {
    func decode(_ members: inout MemberReader, _ common: ElementCommon) throws(LayoutError) -> any LayoutElement
}

/// Reads a `box`: an optional `size`.
struct BoxDecoder: LeafDecoder {
    func decode(_ members: inout MemberReader, _ common: ElementCommon) throws(LayoutError) -> any LayoutElement {
        let size = try members.pair("size", nonNegative: true).map { Size(width: $0.0, height: $0.1) }
        return Box(size: size, style: common.style, identifier: common.identifier)
    }
}

/// The parts every element of the JSON format may carry.
public struct ElementCommon: Sendable {
    public var style: LayoutStyle
    public var identifier: String?
}

/// Turns JSON in the layout format (`docs/layout-format.md`) into an element tree, refusing anything it does
/// not understand with an error that names the JSON path and the reason.
///
/// Leaf types are pluggable: the built-in `box`, and any added to ``leafDecoders`` (the node layer adds
/// `text` and `image`).
public struct LayoutDecoder: Sendable {

    /// The stack a thread needs to decode and lay out a document at the default depth limit.
    ///
    /// Parsing keeps no stack of its own, but decoding and layout recurse once per element level: at 1,000
    /// levels that takes up to 16 MB in debug builds (less in release). The main thread has 8 MB, Dispatch
    /// workers the platform's thread default (8 MB on Linux as measured here, 512 KB on Darwin), so `weft
    /// layout` works on a thread of this size; do the same, or lower ``Limits/maxDepth``.
    public static let recommendedStackSize = 64 << 20

    /// Bounds on the size of a document, so that hostile input cannot exhaust memory or stack.
    public struct Limits: Sendable {
        /// The deepest element nesting accepted (the root is depth 1).
        public var maxDepth: Int
        /// The most elements accepted.
        public var maxElements: Int
        /// The most elements of one JSON array, or members of one object (a stack's children, say); refused
        /// while parsing, naming the container's path.
        public var maxWidth: Int

        public init(maxDepth: Int = 1000, maxElements: Int = 1_000_000, maxWidth: Int = 100_000) {
            self.maxDepth = maxDepth
            self.maxElements = maxElements
            self.maxWidth = maxWidth
        }

        /// A parser that applies these limits: the JSON nesting decoding needs for ``maxDepth`` element
        /// levels (two JSON levels per element level, plus room for styles), and ``maxWidth``.
        public func parser(shouldStop: (@Sendable () -> Bool)? = nil) -> JSONParser {
            JSONParser(maxDepth: maxDepth * 2 + 8, maxWidth: maxWidth, shouldStop: shouldStop)
        }
    }

    public var leafDecoders: [String: any LeafDecoder]
    public var limits: Limits

    public init(limits: Limits = Limits()) {
        self.limits = limits
        leafDecoders = ["box": BoxDecoder()]
    }

    static let specTypes = [
        "stack", "inset", "overlay", "background", "center", "relative", "ratio", "absolute", "wrapper",
        "corner", "spacer",
    ]

    /// Parses and decodes a document.
    public func decode(_ text: String) throws(LayoutError) -> LayoutDocument {
        let value = try limits.parser().parse(text)
        return try decode(value)
    }

    /// Decodes an already parsed document whose root is at `path`. Specs are built into one arena (the
    /// document's root is a ``Spec`` of it, unless the root is a leaf).
    public func decode(_ value: JSONValue, path: String = "root") throws(LayoutError) -> LayoutDocument {
        var state = State()
        let root: any SpecPart
        do {
            root = try element(value, path: path, depth: 1, state: &state)
        } catch {
            guard let duplicate = state.duplicate else { throw error }
            // The first place of a duplicate id, found by decoding again up to that element.
            var again = State()
            again.stopAt = duplicate.first
            _ = try? self.element(value, path: path, depth: 1, state: &again)
            throw LayoutError(
                "duplicate id \"\(clippedForMessage(duplicate.identifier))\", first used at \(LayoutError.abbreviated(again.stoppedAt ?? "?"))",
                path: error.path)
        }
        let element: any LayoutElement
        if let spec = root as? SpecRef {
            element = state.specs.finish(spec)
        } else if let leaf = root as? any LayoutElement {
            element = leaf
        } else {
            throw LayoutError("the root is neither a spec nor an element", path: path)
        }
        return LayoutDocument(root: element, identifiers: state.identifiers, elementCount: state.count)
    }

    struct State {
        var identifiers: [String] = []
        /// Each id's first element, by its number in decoding order (by its path, every id held a string as long
        /// as its depth: 1.3 GB for 100,000 ids 990 levels down); its path is found again only for an error.
        var seen: [String: Int] = [:]
        /// A duplicate id met: the id and the number of its first element.
        var duplicate: (identifier: String, first: Int)?
        /// When decoding again to find an element's path: its number, and its path once met.
        var stopAt = 0
        var stoppedAt: String?
        var count = 0
        var specs = SpecBuilder()
    }

    /// A decoded element: a spec in the state's builder, or a leaf element.
    func element(_ value: JSONValue, path: String, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        guard depth <= limits.maxDepth else {
            throw LayoutError("elements nested deeper than the limit of \(limits.maxDepth)", path: path, kind: .limit)
        }
        state.count += 1
        if state.count == state.stopAt {
            state.stoppedAt = path
            throw LayoutError("found", path: path)
        }
        guard state.count <= limits.maxElements else {
            throw LayoutError("more elements than the limit of \(limits.maxElements)", path: path, kind: .limit)
        }
        var members = try MemberReader(value, path: path, what: "an element")
        guard let type = try members.string("type") else {
            throw LayoutError("missing; every element needs a \"type\"", path: members.path("type"))
        }
        var common = ElementCommon(style: LayoutStyle(), identifier: nil)
        if let identifier = try members.string("id") {
            guard !identifier.isEmpty else { throw LayoutError("expected a non-empty string", path: members.path("id")) }
            if let first = state.seen[identifier] {
                state.duplicate = (identifier, first)
                throw LayoutError("duplicate id \"\(clippedForMessage(identifier))\"", path: members.path("id"))
            }
            state.seen[identifier] = state.count
            state.identifiers.append(identifier)
            common.identifier = identifier
        }
        if let style = members.value("style") {
            common.style = try decodeStyle(style, path: members.path("style"))
        }
        let element: any SpecPart
        if let leaf = leafDecoders[type] {
            element = try leaf.decode(&members, common)
        } else if Self.specTypes.contains(type) {
            element = try spec(type, &members, common, depth: depth, state: &state)
        } else {
            let known = (Self.specTypes + leafDecoders.keys.sorted())
            var reason = "unknown element type \"\(clippedForMessage(type))\""
            if let guess = nearest(type, among: known) { reason += " (did you mean \"\(guess)\"?)" }
            reason += "; expected one of " + known.map { "\"\($0)\"" }.joined(separator: ", ")
            throw LayoutError(reason, path: members.path("type"))
        }
        try members.finish()
        return element
    }

    func child(_ key: String, of what: String, _ members: inout MemberReader, depth: Int, state: inout State) throws(LayoutError) -> any SpecPart {
        let value = try members.required(key, for: what)
        return try element(value, path: members.path(key), depth: depth + 1, state: &state)
    }

    func children(_ members: inout MemberReader, depth: Int, state: inout State) throws(LayoutError) -> [any SpecPart] {
        guard let value = members.value("children") else { return [] }
        guard case .array(let items) = value else {
            throw LayoutError("expected an array of elements, got \(value.summary)", path: members.path("children"))
        }
        var result: [any SpecPart] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            result.append(try element(item, path: members.path("children") + "[\(i)]", depth: depth + 1, state: &state))
        }
        return result
    }
}
