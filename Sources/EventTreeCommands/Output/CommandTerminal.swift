#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where a command writes, and whether it may use color there.
public struct CommandTerminal: Sendable {
    /// Writes to standard output.
    public var write: @Sendable (String) -> Void
    /// Writes to standard error.
    public var writeError: @Sendable (String) -> Void
    /// Whether standard output is a terminal that accepts color.
    public var isColorful: Bool
    /// Whether standard error is a terminal (for progress lines).
    public var showsProgress: Bool

    /// A terminal that writes through the given functions.
    public init(
        write: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void,
        isColorful: Bool, showsProgress: Bool
    ) {
        self.write = write
        self.writeError = writeError
        self.isColorful = isColorful
        self.showsProgress = showsProgress
    }

    /// The process's own standard output and error.
    public static var standard: CommandTerminal {
        CommandTerminal(
            write: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            writeError: { text in FileHandle.standardError.write(Data(text.utf8)) },
            isColorful: isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil && getenv("TERM").map { String(cString: $0) } != "dumb",
            showsProgress: isatty(STDERR_FILENO) == 1)
    }
}
