import ArgumentParser
import Foundation

@main
struct WeftCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weft",
        abstract: "Weft: Texture's layout model for Swift, concurrent and fast.",
        subcommands: [DemoCommand.self, BenchCommand.self, LayoutCommand.self]
    )

    /// Parses and runs the command; a value that does not parse is bad input like any other (one line, status
    /// 2), whether it comes after `=` or a space, negative or not.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if let line = ArgumentErrors.valueError(in: message(for: error)) {
                printError("weft: \(line)")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Bad input: printed as one line on standard error, exit status 2.
struct InputError: Error, CustomStringConvertible {
    let description: String
}

extension ParsableCommand {
    /// Runs `body`, turning an ``InputError`` into its one line on standard error and exit status 2.
    func reportingInputErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as InputError {
            printError("weft: \(error.description)")
            throw ExitCode(2)
        }
    }
}
