#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The process's private directory for seeds and the journal each input is tried on: in
/// memory (`/dev/shm`) where there is one, removed when the process exits normally.
public enum Scratch {
    /// The directory.
    public static let directory: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        removeLeftovers(in: base)
        let directory = base + "eventtree-fuzz-\(getpid())-\(UUID().uuidString.prefix(8))"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot create \(directory): \(error)")
        }
        removedAtExit = directory
        atexit { if let directory = Scratch.removedAtExit { try? FileManager.default.removeItem(atPath: directory) } }
        return directory
    }()

    nonisolated(unsafe) private static var removedAtExit: String?

    /// Removes the directories of fuzzers that crashed (whose process is gone).
    private static func removeLeftovers(in base: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix("eventtree-fuzz-") {
            guard let pid = name.split(separator: "-").dropFirst(2).first.flatMap({ pid_t($0) }) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: base + name) }
        }
    }

    /// The journal each input is tried on.
    public static var journal: String { directory + "/input.eventtree" }

    /// Writes `bytes` as the input journal, removing whatever an earlier input left beside it.
    public static func writeJournal(_ bytes: [UInt8]) {
        for suffix in ["-wal", "-shm", "-journal", ".lock"] { unlink(journal + suffix) }
        let descriptor = open(journal, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if descriptor < 0 { fail("cannot write \(journal)") }
        defer { close(descriptor) }
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count <= 0 { fail("cannot write \(journal)") }
                written += count
            }
        }
    }

    /// Writes `bytes` to the file named like the input journal plus `suffix` (its -wal, say).
    public static func writeBeside(suffix: String, _ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: journal + suffix, contents: Data(bytes))
    }
}
