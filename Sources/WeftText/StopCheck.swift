/// Asks a caller's hook, as a measurement goes on, whether to give up (a deadline passed, a client left).
///
/// Measuring counts its work in steps: each pass over the text counts the UTF-16 units it goes past (finding
/// grapheme clusters, line break opportunities, itemizing, shaping, breaking lines), and each HarfBuzz call and
/// each line set counts ``callSteps`` more. The hook is asked once for every ``interval`` steps counted (a
/// measurement of `n` steps that is not stopped asks it `n / interval` times); when it says stop, the measurement
/// ends with a `.limit` error whose reason is ``TextError/stoppedReason``. Without a hook a step costs an
/// addition and one comparison.
struct StopCheck {
    /// Steps between two asks: a few hundred microseconds of measuring.
    static let interval = 16_384
    /// What a HarfBuzz call or a line set counts besides the units it covers (a call costs about as much as
    /// that many units).
    static let callSteps = 64

    let shouldStop: (@Sendable () -> Bool)?
    /// The steps counted so far.
    private(set) var steps = 0
    /// ``steps`` at which the hook is asked next (`Int.max`: never, there is no hook).
    private var nextAsk: Int

    init(_ shouldStop: (@Sendable () -> Bool)?) {
        self.shouldStop = shouldStop
        nextAsk = shouldStop == nil ? .max : Self.interval
    }

    /// Counts `count` steps, asking the hook when its interval is up.
    @inline(__always)
    mutating func add(_ count: Int) throws(TextError) {
        steps &+= count
        if _slowPath(steps >= nextAsk) { try ask() }
    }

    /// Asks the hook once for each multiple of the interval the count reached, and throws if it says to stop.
    @inline(never)
    private mutating func ask() throws(TextError) {
        while steps >= nextAsk {
            nextAsk &+= Self.interval
            if let shouldStop, shouldStop() { throw TextError(TextError.stoppedReason, path: "string", kind: .limit) }
        }
    }
}

extension TextError {
    /// The reason of the error a measurement stopped by its caller's hook throws (see
    /// ``TextMeasurer/measure(_:constraints:shouldStop:)``).
    public static let stoppedReason = "text measurement stopped before the end (the caller gave up: a deadline or a cancellation)"

    /// Whether this is the error of a measurement its caller's hook stopped.
    public var isStopped: Bool { kind == .limit && reason == Self.stoppedReason }
}
