import Benchmark
import Dispatch
import Scenarios
import WeftText

// Text scenarios of issue 12, over the comments of TextScenarios: distinct comments of about 150 characters
// in Noto Sans 14 pt, 359 points wide. Registered from `benchmarks` (WeftBenchmarks.swift). With
// `scalingFactor: .kilo` every figure is per text.

/// T1 to T3: measuring cold against HarfBuzz directly, re-measuring cached text at a new width, and 10,000
/// comments on one thread against all cores.
func textBenchmarks() {
    let style = TextStyle(family: "Noto Sans", size: 14)
    let texts = TextScenarios.comments(1000)

    // T1: each comment shaped and broken into lines by a measurer with an empty cache...
    Benchmark("T1 text measured cold (FontMeasurer), per text", configuration: .init(maxIterations: 20)) { benchmark in
        let measurer = FontMeasurer(registry: try FontRegistry.standard())
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try measurer.measure(texts[i], style: style, width: 359))
        }
    }
    // ...against one hb_shape of the same string in the same face (target: T1 at most 1.3 times this).
    Benchmark("T1 text shaped by HarfBuzz directly, per text", configuration: .init(maxIterations: 20)) { benchmark in
        let reference = try HarfBuzzReference(registry: FontRegistry.standard(), family: style.family)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try reference.width(of: texts[i], size: style.size))
        }
    }

    // T2: the same comments re-measured at a new width from the cache (target: at least 10 times T1's speed).
    Benchmark("T2 text re-measured at a new width (cached), per text", configuration: .init(maxIterations: 20)) { benchmark in
        let measurer = FontMeasurer(registry: try FontRegistry.standard())
        for text in texts { _ = try measurer.measure(text, style: style, width: 359) }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try measurer.measure(texts[i], style: style, width: 300))
        }
    }

    // T3: 10,000 distinct comments measured cold on one thread and on all cores; compare the two.
    let many = TextScenarios.comments(10_000, seed: 2)
    for threads in [1, 0] {
        Benchmark("T3 text: 10,000 comments cold on \(threads == 1 ? "1 thread" : "all cores"), per text",
                  configuration: .init(scalingFactor: .one, maxIterations: 6,
                                       thresholds: longTolerances)) { benchmark in
            let measurer = FontMeasurer(registry: try FontRegistry.standard())
            let lanes = threads == 1 ? 1 : ProcessInfoCores.count * 8
            benchmark.startMeasurement()
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                var index = lane
                while index < many.count {
                    blackHole(try? measurer.measure(many[index], style: style, width: 359))
                    index += lanes
                }
            }
        }
    }
}
