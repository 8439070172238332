import WeftLayout

/// Reads the members of one JSON object with typed accessors whose errors name the member's path, and
/// refuses members that no accessor asked for (``finish()``).
public struct MemberReader {
    public let object: JSONObject
    /// The path of the object itself, such as `root.children[2].style`.
    public let path: String
    private var known: [String] = []

    public init(_ value: JSONValue, path: String, what: String) throws(LayoutError) {
        guard case .object(let object) = value else {
            throw LayoutError("expected \(what) (a JSON object), got \(value.summary)", path: path)
        }
        self.object = object
        self.path = path
    }

    /// The path of member `key`.
    public func path(_ key: String) -> String { "\(path).\(key)" }

    /// The raw value of `key`, marking it as known.
    public mutating func value(_ key: String) -> JSONValue? {
        known.append(key)
        return object[key]
    }

    /// A required member.
    public mutating func required(_ key: String, for what: String) throws(LayoutError) -> JSONValue {
        guard let value = value(key) else {
            throw LayoutError("missing; \(what) needs \"\(key)\"", path: path(key))
        }
        return value
    }

    public mutating func number(_ key: String) throws(LayoutError) -> Double? {
        guard let value = value(key) else { return nil }
        return try Self.number(value, path: path(key))
    }

    /// A number that must be finite and >= 0.
    public mutating func nonNegative(_ key: String) throws(LayoutError) -> Double? {
        guard let number = try number(key) else { return nil }
        guard number >= 0 else {
            throw LayoutError("expected a number >= 0, got \(formatPoints(number))", path: path(key))
        }
        return number
    }

    public mutating func bool(_ key: String) throws(LayoutError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else {
            throw LayoutError("expected true or false, got \(value.summary)", path: path(key))
        }
        return flag
    }

    public mutating func string(_ key: String) throws(LayoutError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else {
            throw LayoutError("expected a string, got \(value.summary)", path: path(key))
        }
        return text
    }

    /// A member whose value is one of an enumeration's raw values.
    public mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(LayoutError) -> T?
    where T.RawValue == String {
        guard let value = value(key) else { return nil }
        let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .string(let text) = value, let choice = T(rawValue: text) else {
            throw LayoutError("expected one of \(names), got \(value.summary)", path: path(key))
        }
        return choice
    }

    /// A member holding `[a, b]`: two finite numbers.
    public mutating func pair(_ key: String, nonNegative: Bool) throws(LayoutError) -> (Double, Double)? {
        guard let value = value(key) else { return nil }
        let memberPath = path(key)
        guard case .array(let items) = value, items.count == 2 else {
            throw LayoutError("expected an array of two numbers, got \(value.summary)", path: memberPath)
        }
        let a = try Self.number(items[0], path: memberPath + "[0]")
        let b = try Self.number(items[1], path: memberPath + "[1]")
        if nonNegative {
            if a < 0 { throw LayoutError("expected a number >= 0, got \(formatPoints(a))", path: memberPath + "[0]") }
            if b < 0 { throw LayoutError("expected a number >= 0, got \(formatPoints(b))", path: memberPath + "[1]") }
        }
        return (a, b)
    }

    /// Refuses any member no accessor asked for, suggesting the nearest known name.
    public func finish() throws(LayoutError) {
        for key in object.keys where !known.contains(key) {
            var reason = "unknown property"
            if let guess = nearest(key, among: known) { reason += " (did you mean \"\(guess)\"?)" }
            reason += "; expected one of " + known.map { "\"\($0)\"" }.joined(separator: ", ")
            throw LayoutError(reason, path: path(clippedForMessage(key)))
        }
    }

    static func number(_ value: JSONValue, path: String) throws(LayoutError) -> Double {
        guard case .number(let number) = value else {
            throw LayoutError("expected a number, got \(value.summary)", path: path)
        }
        return number
    }
}

/// `text` as an error message quotes it: whole up to 64 characters, else its first 64 and how many more (an
/// unknown name of a megabyte was echoed whole). Characters here are Unicode scalars: one grapheme cluster can
/// hold any number of them ("a" and 100,000 combining accents is one), so a count of clusters bounded nothing.
func clippedForMessage(_ text: String) -> String {
    let limit = 64
    guard text.utf8.count > limit else { return text }
    let scalars = text.unicodeScalars
    guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex), end < scalars.endIndex else {
        return text
    }
    return "\(String(scalars[..<end]))... (\(scalars[end...].count) more characters)"
}

/// The candidate within edit distance 2 of `word`, if any (for "did you mean" hints).
func nearest(_ word: String, among candidates: [String]) -> String? {
    var best: (String, Int)?
    // (Lengths first: names more than 2 apart in length are more than 2 edits apart, and the distance table of a
    // megabyte-long name against each candidate took seconds.)
    let length = word.count
    for candidate in candidates where abs(candidate.count - length) <= 2 {
        let distance = editDistance(Array(word.lowercased()), Array(candidate.lowercased()))
        if distance <= 2, distance < (best?.1 ?? Int.max) {
            best = (candidate, distance)
        }
    }
    return best?.0
}

func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
