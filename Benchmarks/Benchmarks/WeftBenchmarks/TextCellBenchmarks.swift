import Benchmark
import Scenarios
import WeftNodes
import WeftText

// T4 (issue 12): the photo cell with real text, cold, as a node tree: compare with "1 photo cell cold, node
// tree with ASM (1000 cells), per cell", the same spec over fixed-size leaves. Registered from `benchmarks`
// (WeftBenchmarks.swift). Per cell (`scalingFactor: .kilo`): each iteration lays out 1,000 new cells whose
// texts a new measurer (an empty shaped-run cache) measures, so every username and comment is shaped.

func textCellBenchmarks() {
    Benchmark("T4 photo cell with real text cold, node tree with ASM (1000 cells), per cell",
              configuration: .init(maxIterations: 20)) { benchmark in
        let registry = try FontRegistry.standard()
        let nodes = TextCellNode.cells(1000, measurer: FontMeasurer(registry: registry))
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try LayoutPass.compute(root: nodes[i], range: BenchmarkCell.range))
        }
    }
}
