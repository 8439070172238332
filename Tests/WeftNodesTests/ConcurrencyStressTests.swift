import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSync

/// A cell whose spec shows a changing subset of its six leaves, in a changing arrangement.
final class StressCell: Node, @unchecked Sendable {
    let leaves: [CountingLeaf]
    private let mask = Locked<UInt8>(0b000111)

    init(_ index: Int) {
        leaves = (0..<6).map { CountingLeaf("c\(index).l\($0)", size: Size(Double(10 + $0), Double(5 + $0))) }
        super.init()
        identifier = "cell\(index)"
        automaticallyManagesSubnodes = true
    }

    func setMask(_ value: UInt8) { mask.withLock { $0 = value } }

    override func layoutSpecThatFits(_ range: SizeRange, in specs: inout SpecBuilder) -> (any SpecPart)? {
        let bits = mask.withLock { $0 }
        let shown = leaves.enumerated().filter { bits & (1 << $0.offset) != 0 }.map(\.element)
        let row = StackSpec.horizontal(spacing: 2, children: Array(shown.prefix(3)))
        let column = StackSpec.vertical(children: Array(shown.dropFirst(3)))
        return bits & 0b1000000 != 0
            ? InsetSpec(insets: EdgeInsets(all: 4), child: StackSpec.vertical(children: [column, row]))
            : StackSpec.vertical(children: [row, column])
    }
}

@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    /// Thousands of layouts on background queues while other threads change cells and call setNeedsLayout,
    /// and the apply queue applies diffs; afterwards every cell's hierarchy and frames equal a fresh layout's.
    @Test("Layouts, setNeedsLayout and applies from many threads converge to a fresh layout")
    func stress() throws {
        let cells = (0..<120).map(StressCell.init)
        let range = SizeRange(min: Size(200, 0), max: Size(200, .infinity))
        for cell in cells { cell.constrainedRange = range }
        try settle()

        let group = DispatchGroup()
        let layouts = Locked(0)
        // Two threads lay cells out in several ranges, thousands of times.
        for worker in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var rng = SystemRandomNumberGenerator()
                for i in 0..<3000 {
                    let cell = cells[(i * 7 + worker) % cells.count]
                    let width: Double = [150.0, 200, 320].randomElement(using: &rng) ?? 200
                    _ = try? cell.layoutThatFits(SizeRange(min: Size(width, 0), max: Size(width, .infinity)))
                    layouts.withLock { $0 += 1 }
                }
            }
        }
        // Two threads change what cells show and how big leaves are, and call setNeedsLayout.
        for worker in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var rng = SystemRandomNumberGenerator()
                for i in 0..<1500 {
                    let cell = cells[(i * 13 + worker * 5) % cells.count]
                    if Bool.random(using: &rng) {
                        cell.setMask(UInt8.random(in: 0...127, using: &rng))
                        cell.setNeedsLayout()
                    } else {
                        let leaf = cell.leaves[Int.random(in: 0..<6, using: &rng)]
                        leaf.size = Size(Double.random(in: 5...40, using: &rng).rounded(), 8)
                        leaf.setNeedsLayout()
                    }
                }
            }
        }
        // And the apply queue does hierarchy work of its own meanwhile.
        for _ in 0..<200 {
            ApplyQueue.main.enqueue {
                for cell in cells.prefix(10) { try? cell.layoutIfNeeded() }
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        try settle()
        #expect(layouts.withLock { $0 } == 6000)

        for cell in cells {
            #expect(cell.lastLayoutError == nil)
            let applied = cell.subnodes
            let appliedFrames = applied.map(\.frame)
            cell.invalidateLayout()
            let fresh = try LayoutPass.compute(root: cell, range: range)
            let expected = fresh.rootLayout.flattened()
            #expect(applied.map(ObjectIdentifier.init) == expected.map { $0.object.map(ObjectIdentifier.init) },
                    "\(cell.displayName): subnodes \(names(applied)) != fresh \(expected.map { $0.element.identifier ?? "?" })")
            #expect(appliedFrames == expected.map(\.frame), "\(cell.displayName): frames differ from a fresh layout")
            for node in applied { #expect(node.supernode === cell) }
            for leaf in cell.leaves where !applied.contains(where: { $0 === leaf }) { #expect(leaf.supernode == nil) }
        }
    }
}
