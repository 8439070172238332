import Dispatch
import WeftText

/// Text scenarios (issue 12): real shaping cost per text leaf against HarfBuzz called directly, cached
/// re-measuring at a new width against shaping cold, and 10,000 comments on one thread against all cores.
///
/// The texts are synthetic comments of about 150 characters (Latin words, some with accents, so that the
/// engine's non-ASCII paths run), distinct from each other, set in Noto Sans 14 pt in a 359-point column
/// (the photo cell's comment width). Each cold run uses a fresh measurer, so every text is shaped.
public enum TextScenarios {
    static let words = [
        "lovely", "light", "what", "a", "view", "the", "colors", "here", "are", "amazing", "wish", "I", "was",
        "there", "so", "good", "morning", "golden", "hour", "again", "never", "gets", "old", "this", "place",
        "café", "déjà", "vu", "über", "naïve", "señor", "crème", "brûlée", "Zürich", "São", "Paulo", "Ærø",
    ]

    /// `count` distinct comments of about 150 characters, the same for the same seed.
    public static func comments(_ count: Int, seed: UInt64 = 1) -> [String] {
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { index in
            var comment = "#\(index)"
            while comment.count < 150 { comment += " " + words[next() % words.count] }
            return comment
        }
    }

    static let style = TextStyle(family: "Noto Sans", size: 14)
    static let width = 359.0

    /// A measurer with an empty cache over the standard fonts.
    static func freshMeasurer() throws -> FontMeasurer {
        FontMeasurer(registry: try FontRegistry.standard())
    }

    /// Measures every text (`measure` the measurer's results, so that the work is not optimized away).
    static func measureAll(_ texts: [String], with measurer: FontMeasurer, width: Double) throws -> Double {
        var total = 0.0
        for text in texts { total += try measurer.measure(text, style: style, width: width).height }
        return total
    }

    /// T1: each comment measured cold (shaped, broken into lines), against one `hb_shape` of the same
    /// string in the same face. `extra["ratio"]`: engine time / HarfBuzz time (target: at most 1.3).
    /// The two are timed alternately, one repetition each in turn, so that a change in the machine's load
    /// falls on both.
    public static func shapingVersusHarfBuzz(texts count: Int = 1_000, repetitions: Int) throws -> ScenarioResult {
        let texts = comments(count)
        let reference = try HarfBuzzReference(registry: FontRegistry.standard(), family: style.family)
        var engine: [Double] = []
        var direct: [Double] = []
        for _ in 0..<repetitions {
            engine += try measure(repetitions: 1, setup: { try freshMeasurer() }) { measurer in
                _ = try measureAll(texts, with: measurer, width: width)
            }
            direct += try measure(repetitions: 1, setup: { () }) { _ in
                var total = 0.0
                for text in texts { total += try reference.width(of: text, size: style.size) }
                precondition(total > 0)
            }
        }
        var result = ScenarioResult(id: "t1-shaping", name: "text: \(count) comments measured cold vs HarfBuzz directly",
                                    unit: "text", items: count, runs: engine)
        let harfBuzz = ScenarioResult(id: "", name: "", unit: "", items: count, runs: direct).median
        result.extra["harfBuzzSeconds"] = harfBuzz
        result.extra["ratio"] = result.median / harfBuzz
        return result
    }

    /// T2: the same comments re-measured at a new width (300) from the cache, against measuring them cold.
    /// `extra["speedup"]`: cold time / cached time (target: at least 10).
    public static func remeasureCached(texts count: Int = 1_000, repetitions: Int) throws -> ScenarioResult {
        let texts = comments(count)
        let cold = try measure(repetitions: repetitions, setup: { try freshMeasurer() }) { measurer in
            _ = try measureAll(texts, with: measurer, width: width)
        }
        let warm = try measure(repetitions: repetitions, setup: { () -> FontMeasurer in
            let measurer = try freshMeasurer()
            _ = try measureAll(texts, with: measurer, width: width)
            return measurer
        }) { measurer in
            _ = try measureAll(texts, with: measurer, width: 300)
        }
        var result = ScenarioResult(id: "t2-remeasure", name: "text: \(count) comments re-measured at a new width (cached)",
                                    unit: "text", items: count, runs: warm)
        let coldMedian = ScenarioResult(id: "", name: "", unit: "", items: count, runs: cold).median
        result.extra["coldSeconds"] = coldMedian
        result.extra["speedup"] = coldMedian / result.median
        return result
    }

    /// T3: `count` distinct comments measured cold on one thread, then on every core (one shared measurer).
    /// `extra["speedup"]`: one thread's time / all cores' time.
    public static func parallelComments(count: Int = 10_000, repetitions: Int) throws -> ScenarioResult {
        let texts = comments(count, seed: 2)
        let cores = ProcessInfoCores.count
        let serial = try measure(repetitions: repetitions, setup: { try freshMeasurer() }) { measurer in
            _ = try measureAll(texts, with: measurer, width: width)
        }
        let parallel = try measure(repetitions: repetitions, setup: { try freshMeasurer() }) { measurer in
            let shared = measurer
            let lanes = cores * 8
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                var index = lane
                while index < texts.count {
                    _ = try? shared.measure(texts[index], style: style, width: width)
                    index += lanes
                }
            }
        }
        var result = ScenarioResult(id: "t3-parallel", name: "text: \(count) comments measured cold on \(cores) cores",
                                    unit: "text", items: count, runs: parallel)
        let serialMedian = ScenarioResult(id: "", name: "", unit: "", items: count, runs: serial).median
        result.extra["serialSeconds"] = serialMedian
        result.extra["speedup"] = serialMedian / result.median
        result.extra["cores"] = Double(cores)
        return result
    }
}
