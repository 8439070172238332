import ArgumentParser
import WeftNodes
import WeftText

/// `--text-metrics`: how text leaves are measured.
enum TextMetrics: String, CaseIterable, CheckedArgument {
    /// Real fonts: HarfBuzz shaping over the standard fonts and any registered with `--font-dir`.
    case fonts
    /// `FixedMetricsMeasurer`: fixed fractions of the font size, the same on every machine.
    case fixed

    static let valueName = "metrics"
    static let expectation = "expected one of fonts, fixed"
}

/// The measurer for `--text-metrics` and `--font-dir` (repeatable).
///
/// `fonts` without font directories is ``TextNode/standardMeasurer`` (its error, if the standard fonts are
/// missing, is reported by the first text leaf). With directories, their fonts are added to the standard
/// registry (or, without the standard fonts, make the registry alone; its default family is the first one
/// registered). An entry of a directory that is not a regular file, or is too large to be a font, is skipped
/// with a warning on standard error naming it. `fixed` takes no font directories.
func textMeasurer(_ metrics: TextMetrics, fontDirectories: [String]) throws -> any TextMeasurer {
    switch metrics {
    case .fixed:
        guard fontDirectories.isEmpty else {
            throw InputError(description: "--font-dir: fonts are not used with --text-metrics fixed")
        }
        return FixedMetricsMeasurer()
    case .fonts:
        guard !fontDirectories.isEmpty else { return TextNode.standardMeasurer }
        var registry = (try? FontRegistry.standard()) ?? FontRegistry()
        for directory in fontDirectories {
            do throws(TextError) {
                try registry.register(directory: directory) { skipped in
                    printError("weft: warning: --font-dir \(directory): \(skipped.path): \(skipped.reason); skipped")
                }
            } catch {
                let place = error.path == directory ? "" : " \(error.path):"
                throw InputError(description: "--font-dir \(directory):\(place) \(error.reason)")
            }
        }
        return FontMeasurer(registry: registry)
    }
}
