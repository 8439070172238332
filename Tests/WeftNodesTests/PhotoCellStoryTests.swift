import Dispatch
import Foundation
import Testing
import WeftLayout
@testable import WeftNodes
import WeftSamples
import WeftText
import WeftSync

/// Answers image requests when told to, on a background thread.
final class ScriptedLoader: @unchecked Sendable {
    private let waiting = Locked<[String: @Sendable (Image?) -> Void]>([:])

    var loader: NetworkImageNode.Loader {
        { url, completion in self.waiting.withLock { $0[url] = completion } }
    }

    /// Answers on a background thread and returns once the answer was handed over (the node has scheduled its
    /// relayout by then).
    func deliver(_ url: String, size: Size) {
        let completion = waiting.withLock { $0.removeValue(forKey: url) }
        onBackgroundThread { completion?(Image(size: size, name: url)) }
    }
}

/// Runs `body` on a background thread and waits for it.
func onBackgroundThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        body()
        done.signal()
    }
    done.wait()
}

final class SizeChanges: CellNodeOwner, @unchecked Sendable {
    let changes = Locked<[(Size, Size)]>([])
    func cellNode(_ cell: CellNode, didChangeSizeFrom oldSize: Size, to newSize: Size) {
        changes.withLock { $0.append((oldSize, newSize)) }
    }
}

/// The story of Texture's "Automatic Subnode Management" document, told with the photo cell.
///
/// The cells measure their text with `FixedMetricsMeasurer` (`TextNodeTests` checks real fonts). Every number
/// below comes from the documented rules and that measurer's advances (fractions of the
/// font size: s, a, h, e, o, n, c 0.5; r, i, t 0.3; m 0.85; P 0.65; 2 0.55; space 0.25; line height 1.25 x
/// the font size), rounded up to the 1/2-point grid:
/// - username "sarah" at 14 pt: 2.3 em = 32.2, rounded 32.5 wide, 17.5 tall.
/// - location "Paris" at 12 pt: 2.25 em = 27 wide, 15 tall; stretched to the name stack's 32.5.
/// - comments "2 comments" at 13 pt in the footer, which is exactly 375 - 8 - 8 = 359 wide: 16.25, rounded 16.5.
/// - header: avatar inset 44 + 8 = 52 wide, 44 + 8 + 8 = 60 tall; the name stack is centered in those 60.
/// - cell: 60 + 375 (photo) + 16.5 + 8 + 8 = 467.5 tall.
@Suite("The photo cell story")
struct PhotoCellStoryTests {
    func frame(_ node: Node, in cell: Node) -> Rect {
        var rect = node.frame
        var current = node.supernode
        while let parent = current, parent !== cell {
            rect.origin = rect.origin + parent.frame.origin
            current = parent.supernode
        }
        return rect
    }

    @Test("Location and images arrive late on background threads; the hierarchy follows the spec")
    func story() throws {
        let loader = ScriptedLoader()
        let model = PhotoModel(id: 7, username: "sarah", avatarURL: "avatar://7", photoURL: "photo://7",
                               location: nil, comments: "2 comments")
        let cell = PhotoCellNode(model: model, loader: loader.loader, measurer: FixedMetricsMeasurer())
        let owner = SizeChanges()
        cell.owner = owner
        cell.loadImages()
        cell.constrainedRange = SizeRange(min: Size(375, 0), max: Size(375, .infinity))
        try settle()

        // Before anything arrived: username and comments; placeholders hold the images' places.
        #expect(names(cell.subnodes) == ["username", "comments"])
        #expect(cell.frame.size == Size(375, 467.5))
        // Name stack centered in the 60-point header: floor((60 - 17.5) / 2) on the pixel grid = 21.
        #expect(frame(cell.usernameNode, in: cell) == Rect(x: 60, y: 21, width: 32.5, height: 17.5))
        #expect(frame(cell.commentsNode, in: cell) == Rect(x: 8, y: 443, width: 359, height: 16.5))

        // The location arrives on a background thread, which calls setNeedsLayout.
        onBackgroundThread { cell.setLocation("Paris") }
        try settle()
        #expect(names(cell.subnodes) == ["username", "location", "comments"])
        let diff = try #require(cell.lastAppliedDiff)
        #expect(diff.insertions.map { $0.node.identifier } == ["location"])
        #expect(diff.insertions.map(\.index) == [1])
        #expect(diff.removals.isEmpty && diff.moves.isEmpty, "exactly one insertion")
        // The name stack is now 17.5 + 15 = 32.5 tall: floor((60 - 32.5) / 2) = 13.5. The username moved up.
        #expect(frame(cell.usernameNode, in: cell) == Rect(x: 60, y: 13.5, width: 32.5, height: 17.5))
        #expect(frame(cell.locationNode, in: cell) == Rect(x: 60, y: 31, width: 32.5, height: 15))
        #expect(cell.frame.size == Size(375, 467.5), "the header is still 60 tall")

        // The avatar arrives: one insertion, at the front.
        loader.deliver("avatar://7", size: Size(88, 88))
        try settle()
        #expect(names(cell.subnodes) == ["avatar", "username", "location", "comments"])
        #expect(cell.lastAppliedDiff?.insertions.map(\.index) == [0])
        #expect(cell.lastAppliedDiff?.removals.isEmpty == true && cell.lastAppliedDiff?.moves.isEmpty == true)
        #expect(frame(cell.avatarNode, in: cell) == Rect(x: 8, y: 8, width: 44, height: 44))

        // The photo arrives: one insertion, between the header and the footer, at cell width x cell width.
        loader.deliver("photo://7", size: Size(1080, 1080))
        try settle()
        #expect(names(cell.subnodes) == ["avatar", "username", "location", "photo", "comments"])
        #expect(cell.lastAppliedDiff?.insertions.map(\.index) == [3])
        #expect(cell.lastAppliedDiff?.removals.isEmpty == true && cell.lastAppliedDiff?.moves.isEmpty == true)
        #expect(frame(cell.photoNode, in: cell) == Rect(x: 0, y: 60, width: 375, height: 375))
        #expect(cell.frame.size == Size(375, 467.5))
        // The owner heard the cell's first size (a first layout counts as a change from zero), then nothing.
        let changes = owner.changes.withLock { $0 }
        #expect(changes.count == 1)
        #expect(changes.first.map { $0.0 == .zero && $0.1 == Size(375, 467.5) } == true)
        #expect(cell.lastLayoutError == nil)
    }

    @Test("A cell whose size changes tells its owner")
    func sizeChangeReachesOwner() throws {
        let loader = ScriptedLoader()
        let model = PhotoModel(id: 8, username: "ana", avatarURL: "a", photoURL: "p", location: nil, comments: "")
        let cell = PhotoCellNode(model: model, loader: loader.loader, measurer: FixedMetricsMeasurer())
        let owner = SizeChanges()
        cell.owner = owner
        cell.constrainedRange = SizeRange(min: Size(320, 0), max: Size(320, .infinity))
        try settle()
        // No comments: the footer is the inset alone, 16 tall. 60 + 320 + 16 = 396.
        #expect(cell.frame.size == Size(320, 396))
        // One line of comments at 13 pt: 16.25, rounded 16.5: 396 + 16.5 = 412.5.
        cell.commentsNode.text = "nice"
        try settle()
        #expect(cell.frame.size == Size(320, 412.5))
        let changes = owner.changes.withLock { $0 }
        #expect(changes.count == 2)
        #expect(changes.first.map { $0.0 == .zero && $0.1 == Size(320, 396) } == true, "the first size")
        #expect(changes.last.map { $0.0 == Size(320, 396) && $0.1 == Size(320, 412.5) } == true)
    }
}
