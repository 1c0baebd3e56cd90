#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A regular file a command writes its result to (`--output`), atomically, and never one
/// of the files of the journal it read.
///
/// Refused, with one line and exit 2, before anything is written:
/// - the journal and every file kept beside it (``journalFiles``), by name (after
///   resolving symbolic links, whether or not the file exists yet) and by identity (device
///   and inode: a hard link to one of them, or a path through another link);
/// - anything that is not a regular file: a directory, a FIFO, a device, a socket, or a
///   symbolic link to one (such as `/proc/self/fd/1`).
///
/// The text goes to a new file beside the target, which then replaces it (`rename`): a
/// reader sees the old file or the new one, never half of it. A symbolic link to a
/// regular file stays a link: the file it points to is replaced.
struct OutputFile {
    /// The path as given.
    let path: String
    /// The journal the command reads.
    let journal: String

    /// The files SQLite and EventTree keep beside a journal at `JOURNAL`, by suffix, with
    /// what each is: SQLite's write-ahead log and its index, a rollback journal, the
    /// writer's lock (`FileLock`), and the spill file recovery may add.
    static let journalFiles: [(suffix: String, role: String)] = [
        ("", "the journal"),
        ("-wal", "the journal's write-ahead log"),
        ("-shm", "the journal's write-ahead log index"),
        ("-journal", "the journal's rollback journal"),
        (".lock", "the journal's lock file"),
        ("-spill", "the journal's spill file"),
    ]

    /// The file at `path`, checked (see ``OutputFile``) before the command does its work.
    ///
    /// - Parameters:
    ///   - path: The `--output` path.
    ///   - journal: The path of the journal the command reads.
    /// - Throws: `CommandFailure` when the target is refused.
    init(path: String, notOver journal: String) throws {
        self.path = path
        self.journal = journal
        _ = try checkedTarget()
    }

    /// Writes `text`, after checking the target again (the command's work took a while).
    ///
    /// - Throws: `CommandFailure` when the target is refused or cannot be written.
    func write(_ text: String) throws {
        try write { append in append(text) }
    }

    /// Writes what `produce` appends, in order, as it comes: to a new file beside the
    /// target, in chunks (the text is never held whole), which replaces the target once
    /// `produce` returns, after checking the target again. When `produce` throws, the new
    /// file is removed and the target left as it was.
    ///
    /// - Throws: `CommandFailure` when the target is refused or cannot be written; what
    ///   `produce` throws.
    func write(_ produce: (_ append: (String) -> Void) throws -> Void) throws {
        let replacement = try Replacement(beside: try checkedTarget(), shownAs: path)
        do {
            try produce { replacement.append($0) }
            try replacement.finish(as: try checkedTarget())
        } catch {
            replacement.abandon()
            throw error
        }
    }

    /// The path the text goes to (links resolved), once the target passed every check.
    private func checkedTarget() throws -> String {
        let target = Self.resolved(path)
        // Each file's role (an index into journalFiles) and the name it was found under,
        // by resolved name and by identity.
        var names: [String: (index: Int, name: String)] = [:]
        var identities: [FileIdentity: (index: Int, name: String)] = [:]
        for (index, file) in Self.journalFiles.enumerated() {
            // The name beside the path given (the lock's) and beside the file it leads to
            // (SQLite's, which resolves links).
            for name in [journal + file.suffix, Self.resolved(journal) + file.suffix] {
                let resolved = Self.resolved(name)
                if names[resolved] == nil { names[resolved] = (index, name) }
                if let identity = FileIdentity(path: name), identities[identity] == nil { identities[identity] = (index, name) }
            }
        }
        func described(_ file: (index: Int, name: String)) -> String {
            Self.journalFiles[file.index].role + (file.name == path ? "" : " (\(file.name))")
        }
        if let file = names[target] {
            throw CommandFailure(message: "\(path) is \(file.index == 0 ? "the journal itself" : described(file)); choose another --output")
        }
        if let file = FileIdentity(path: path).flatMap({ identities[$0] }) {
            throw CommandFailure(message: "\(path) is another name of \(described(file)); choose another --output")
        }
        var info = stat()
        if stat(path, &info) == 0, let kind = Self.kind(info.st_mode) {
            throw CommandFailure(
                message: "\(path) is \(kind), not a regular file; --output takes a file's path (--output - writes to standard output)")
        }
        return target
    }

    /// What a file of mode `mode` is, unless it is a regular file.
    private static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// `path` absolute, with every symbolic link resolved, also in a last part that does
    /// not exist yet (a dangling link is followed to the name it would create).
    static func resolved(_ path: String) -> String {
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        // Linux follows at most 40 links in a path.
        for _ in 0..<40 {
            if let real = realpath(current, nil) {
                defer { free(real) }
                return String(cString: real)
            }
            let name = (current as NSString).lastPathComponent
            let folder = (current as NSString).deletingLastPathComponent
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, Int(PATH_MAX))
            guard count > 0 else {
                // No such file: the folder's real path and the name.
                guard let real = realpath(folder, nil) else { return current }
                defer { free(real) }
                return (String(cString: real) as NSString).appendingPathComponent(name)
            }
            let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = URL(fileURLWithPath: link, relativeTo: URL(fileURLWithPath: folder, isDirectory: true))
                .standardizedFileURL.path
        }
        return current
    }

    /// A new file beside the target, filled in chunks, then renamed over the target: the file
    /// is replaced whole or not at all. An existing file's permissions are kept; a new one
    /// gets the process's default (0666 less the umask), as `open` gives it.
    private final class Replacement {
        private let temporary: String
        private let shown: String
        private var descriptor: Int32
        private var pending: [UInt8] = []
        private var written = 0
        /// The first error writing met (reported by ``finish(as:)``).
        private var failed: Int32?
        /// How many bytes gather before they are written.
        private static let chunk = 1 << 16

        init(beside target: String, shownAs shown: String) throws {
            self.shown = shown
            let folder = (target as NSString).deletingLastPathComponent
            temporary = (folder as NSString).appendingPathComponent(
                ".\((target as NSString).lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { throw OutputFile.failure(shown, errno) }
            var existing = stat()
            if stat(target, &existing) == 0 && fchmod(descriptor, existing.st_mode & 0o7777) != 0 { failed = errno }
        }

        /// Appends `text`, writing once a chunk has gathered.
        func append(_ text: String) {
            pending.append(contentsOf: text.utf8)
            if pending.count >= Self.chunk { flush() }
        }

        private func flush() {
            var start = 0
            while failed == nil && start < pending.count {
                // pwrite: the same POSIX call everywhere, and not shadowed by a `write` method.
                let count = pending[start...].withUnsafeBytes { buffer in
                    pwrite(descriptor, buffer.baseAddress, buffer.count, off_t(written))
                }
                if count < 0 {
                    if errno != EINTR { failed = errno }
                } else {
                    written += count
                    start += count
                }
            }
            pending.removeAll(keepingCapacity: true)
        }

        /// Writes the rest, makes it durable, and renames the file over `target`.
        func finish(as target: String) throws {
            flush()
            if failed == nil && fsync(descriptor) != 0 { failed = errno }
            if close(descriptor) != 0 && failed == nil { failed = errno }
            descriptor = -1
            if failed == nil && rename(temporary, target) != 0 { failed = errno }
            if let failed {
                unlink(temporary)
                throw OutputFile.failure(shown, failed)
            }
        }

        /// Removes the new file (the target stays as it was).
        func abandon() {
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
            unlink(temporary)
        }
    }

    private static func failure(_ path: String, _ code: Int32) -> CommandFailure {
        CommandFailure(message: "cannot write \(path): \(String(cString: strerror(code))); check the folder and its permissions")
    }

    /// A file's device and inode: the same file under any name or link.
    private struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        /// The identity of the file at `path` (links followed), or `nil` when there is none.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
        }
    }
}
