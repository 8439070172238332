import Dispatch
import Foundation
import Testing
import WeftLayout

@Suite("Properties of random trees")
struct PropertyTests {
    /// Every root layout lies within its size range and every frame is finite with a non-negative size, for
    /// 3,000 random trees over every spec and style property.
    @Test("Layouts lie within their range and hold no NaN or infinity", arguments: 0..<6)
    func withinRange(batch: Int) throws {
        var trees = RandomTrees(seed: UInt64(1000 + batch))
        var refused = 0
        defer { #expect(refused < 50, "\(refused) of 500 random trees were refused: the property was hardly checked") }
        for _ in 0..<500 {
            let root = trees.element()
            let range = trees.range()
            let layout: Layout
            do {
                layout = try Layout.compute(root, in: range)
            } catch {
                // The one refusal random trees can meet: an infinite inset on an unbounded axis.
                #expect(error.reason.hasPrefix("an infinite inset needs a finite max"), "\(error)")
                refused += 1
                continue
            }
            let size = layout.size
            #expect(size.width >= range.min.width && size.width <= range.max.width, "width \(size.width) outside \(range)")
            #expect(size.height >= range.min.height && size.height <= range.max.height, "height \(size.height) outside \(range)")
            for entry in layout.allFrames() {
                let f = entry.frame
                #expect(f.origin.x.isFinite && f.origin.y.isFinite, "position of \(entry.element.displayName): \(f)")
                #expect(f.size.width.isFinite && f.size.height.isFinite, "size of \(entry.element.displayName): \(f)")
                #expect(f.size.width >= 0 && f.size.height >= 0, "size of \(entry.element.displayName): \(f)")
            }
        }
    }

    /// Sizes and positions lie on the pixel grid of the scale, for scales 1, 2 and 3.
    @Test("Frames lie on the pixel grid", arguments: [1.0, 2.0, 3.0])
    func pixelGrid(scale: Double) throws {
        var trees = RandomTrees(seed: 77)
        var checked = 0
        defer { #expect(checked > 270, "only \(checked) of 300 random trees were laid out") }
        for _ in 0..<300 {
            guard let layout = try? Layout.compute(trees.element(), in: trees.range(), scale: scale) else { continue }
            checked += 1
            for sublayout in [layout] + layout.allLayouts() {
                for value in [sublayout.position.x, sublayout.position.y, sublayout.size.width, sublayout.size.height] {
                    let pixels = value * scale
                    #expect(abs(pixels - pixels.rounded()) < 1e-6, "\(value) is off the 1/\(scale) grid")
                }
            }
        }
    }

    /// The same trees laid out on eight threads at once give identical frames on every thread.
    @Test("Concurrent layouts of one tree are identical")
    func concurrentIdentical() throws {
        var trees = RandomTrees(seed: 4242)
        let cases = (0..<200).map { _ in (trees.element(), trees.range()) }
        let reference = cases.map { (try? Layout.compute($0.0, in: $0.1)).map(frames) ?? [] }
        #expect(reference.filter(\.isEmpty).count < 20, "most trees must lay out for the comparison to mean anything")
        let results = Results(count: 8)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var builder = LayoutBuilder()
            var mismatches = 0
            for (i, (root, range)) in cases.enumerated() {
                let result = (try? Layout.compute(root, in: range, using: &builder)).map(frames) ?? []
                if result != reference[i] { mismatches += 1 }
            }
            results.set(thread, mismatches)
        }
        #expect(results.values == Array(repeating: 0, count: 8))
    }

    func frames(_ layout: Layout) -> [String] {
        layout.allFrames().map { "\($0.element.identifier ?? "?") \($0.frame)" }
    }
}

extension Layout {
    /// Every layout below this one, depth first.
    func allLayouts() -> [Layout] {
        sublayouts.flatMap { [$0] + $0.allLayouts() }
    }
}

/// Per-thread results, each slot written by one thread only, read after all threads finished.
final class Results: @unchecked Sendable {
    private var slots: [Int]
    private let lock = NSLock()

    init(count: Int) {
        slots = Array(repeating: -1, count: count)
    }

    func set(_ index: Int, _ value: Int) {
        lock.withLock { slots[index] = value }
    }

    var values: [Int] { lock.withLock { slots } }
}
