import EventTree
import EventTreeJournal
import EventTreeTesting
import Foundation
import Testing

/// `--output` (`report -o`, `export -o`) writes regular files only, and never one of the
/// journal's own files: each refusal is one `error:` line and exit 2, with every file of the
/// journal's folder (the journal and its -wal above all) byte for byte as it was.
@Suite struct OutputFileTests {
    /// The commands that take `-o`.
    static let writers: [[String]] = [["report"], ["export", "--format", "jsonl"], ["export", "--format", "chrome-trace"]]

    /// What a writer that crashed leaves in `directory`: `left.eventtree`, its -wal (holding
    /// committed raises the file alone lacks) and its lock file.
    func crashedJournal(in directory: String) throws -> String {
        let live = directory + "/live/live.eventtree"
        try FileManager.default.createDirectory(atPath: directory + "/live", withIntermediateDirectories: true)
        let journal = try Journal(path: live)
        let bus = EventBus(recorder: journal)
        let app = EventNode("app", bus: bus)
        app.on(NamedEvent.self, label: "h") { _, _ in .handled }
        for index in 0..<20 { app.raise(NamedEvent("e\(index)")) }
        try journal.flush()
        let left = directory + "/left.eventtree"
        try FileManager.default.copyItem(atPath: live, toPath: left)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: left + "-wal")
        try journal.close()
        _ = app
        try FileManager.default.removeItem(atPath: directory + "/live")
        try Data("4242\n".utf8).write(to: URL(fileURLWithPath: left + ".lock"))
        return left
    }

    /// Every entry of `directory`: its type, and a regular file's bytes (links not followed).
    static func snapshot(_ directory: String) throws -> [String: String] {
        var entries: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG: entries[name] = "file " + (FileManager.default.contents(atPath: path)?.base64EncodedString() ?? "?")
            case S_IFLNK: entries[name] = "link " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
            case S_IFDIR: entries[name] = "directory"
            case S_IFIFO: entries[name] = "fifo"
            case S_IFSOCK: entries[name] = "socket"
            default: entries[name] = "other"
            }
        }
        return entries
    }

    /// Runs every writer on `journal` with `-o output`: each exits 2 with `stderr` and
    /// changes nothing in `directory`.
    func expectRefusal(
        _ journal: String, output: String, in directory: String, stderr: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for writer in Self.writers {
            let before = try Self.snapshot(directory)
            let result = try Tool.run([writer[0], journal] + writer.dropFirst() + ["-o", output], in: directory, timeout: 60)
            #expect(result.status == 2, "\(writer) -o \(output): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr == "error: \(stderr)\n", "\(writer)", sourceLocation: sourceLocation)
            #expect(result.stdout == "", "\(writer)", sourceLocation: sourceLocation)
            #expect(try Self.snapshot(directory) == before, "\(writer) -o \(output) changed the folder", sourceLocation: sourceLocation)
        }
    }

    @Test func everyFileKeptBesideTheJournalIsRefusedByName() async throws {
        try await withTemporaryDirectory { directory in
            let journal = try crashedJournal(in: directory)
            #expect(FileManager.default.fileExists(atPath: journal + "-wal"))
            let roles = [
                ("-wal", "the journal's write-ahead log"), ("-shm", "the journal's write-ahead log index"),
                ("-journal", "the journal's rollback journal"), (".lock", "the journal's lock file"),
                ("-spill", "the journal's spill file"),
            ]
            try expectRefusal("left.eventtree", output: "left.eventtree", in: directory,
                stderr: "left.eventtree is the journal itself; choose another --output")
            for (suffix, role) in roles {
                // Named as the journal was, and by another spelling of the same path.
                try expectRefusal("left.eventtree", output: "left.eventtree" + suffix, in: directory,
                    stderr: "left.eventtree\(suffix) is \(role); choose another --output")
                try expectRefusal("left.eventtree", output: "./x/../left.eventtree" + suffix, in: directory,
                    stderr: "./x/../left.eventtree\(suffix) is \(role) (left.eventtree\(suffix)); choose another --output")
            }
        }
    }

    @Test func linksToTheJournalsFilesAreRefusedByIdentity() async throws {
        try await withTemporaryDirectory { directory in
            let journal = try crashedJournal(in: directory)
            // Hard links: another name, the same file.
            link(journal + "-wal", directory + "/wal.html")
            link(journal + ".lock", directory + "/lock.json")
            link(journal, directory + "/journal.html")
            try expectRefusal(journal, output: "wal.html", in: directory,
                stderr: "wal.html is another name of the journal's write-ahead log (\(journal)-wal); choose another --output")
            try expectRefusal(journal, output: "lock.json", in: directory,
                stderr: "lock.json is another name of the journal's lock file (\(journal).lock); choose another --output")
            try expectRefusal(journal, output: "journal.html", in: directory,
                stderr: "journal.html is another name of the journal (\(journal)); choose another --output")
            // Symbolic links, to files that exist and to ones that do not yet (a dangling
            // link would create the spill file), and a path through a linked folder.
            symlink("left.eventtree-wal", directory + "/wal-link.html")
            symlink(journal + "-spill", directory + "/spill-link.html")
            symlink(directory, directory + "/folder")
            try expectRefusal(journal, output: "wal-link.html", in: directory,
                stderr: "wal-link.html is the journal's write-ahead log (\(journal)-wal); choose another --output")
            try expectRefusal(journal, output: "spill-link.html", in: directory,
                stderr: "spill-link.html is the journal's spill file (\(journal)-spill); choose another --output")
            try expectRefusal(journal, output: "folder/left.eventtree-shm", in: directory,
                stderr: "folder/left.eventtree-shm is the journal's write-ahead log index (\(journal)-shm); choose another --output")
            // A journal read through a link: SQLite keeps its -wal beside the file the link
            // leads to, the writer its lock beside the link.
            symlink("left.eventtree", directory + "/linked.eventtree")
            let real = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
            try expectRefusal("linked.eventtree", output: "left.eventtree-wal", in: directory,
                stderr: "left.eventtree-wal is the journal's write-ahead log (\(real)/left.eventtree-wal); choose another --output")
            try expectRefusal("linked.eventtree", output: "linked.eventtree.lock", in: directory,
                stderr: "linked.eventtree.lock is the journal's lock file; choose another --output")
        }
    }

    @Test func onlyRegularFilesAreWritten() async throws {
        try await withTemporaryDirectory { directory in
            let journal = try crashedJournal(in: directory)
            let hint = "not a regular file; --output takes a file's path (--output - writes to standard output)"
            try FileManager.default.createDirectory(atPath: directory + "/pages", withIntermediateDirectories: true)
            try expectRefusal(journal, output: "pages", in: directory, stderr: "pages is a directory, \(hint)")
            try expectRefusal(journal, output: ".", in: directory, stderr: ". is a directory, \(hint)")
            mkfifo(directory + "/fifo", 0o644)
            try expectRefusal(journal, output: "fifo", in: directory, stderr: "fifo is a FIFO, \(hint)")
            // A device of the test's own where it may make one (as root, where a tool that
            // renamed over /dev/null would replace the machine's), else /dev/null itself.
            let device = mknod(directory + "/null", S_IFCHR | 0o666, Self.nullDevice) == 0 ? directory + "/null" : "/dev/null"
            try expectRefusal(journal, output: device, in: directory, stderr: "\(device) is a character device, \(hint)")
            symlink(device, directory + "/null.html")
            try expectRefusal(journal, output: "null.html", in: directory, stderr: "null.html is a character device, \(hint)")
            // The tool's own standard output (a pipe here).
            symlink("/proc/self/fd/1", directory + "/stdout.html")
            try expectRefusal(journal, output: "stdout.html", in: directory, stderr: "stdout.html is a FIFO, \(hint)")
            let socket = try Self.listeningSocket(at: directory + "/socket")
            defer { close(socket) }
            try expectRefusal(journal, output: "socket", in: directory, stderr: "socket is a socket, \(hint)")
        }
    }

    @Test func regularFilesAreReplacedWholeKeepingTheirModeAndLinks() async throws {
        try await withTemporaryDirectory { directory in
            let journal = try crashedJournal(in: directory)
            let page = directory + "/page.html"
            try Data("old".utf8).write(to: URL(fileURLWithPath: page))
            chmod(page, 0o600)
            let written = try Tool.run(["report", journal, "-o", "page.html"], in: directory)
            #expect(written.status == 0, "\(written.stderr)")
            #expect(try String(contentsOfFile: page, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
            #expect(try FileManager.default.attributesOfItem(atPath: page)[.posixPermissions] as? Int == 0o600)
            // Through a link, the file it leads to is replaced; the link stays.
            symlink("page.html", directory + "/latest.html")
            let linked = try Tool.run(["export", journal, "--format", "jsonl", "-o", "latest.html"], in: directory)
            #expect(linked.status == 0, "\(linked.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/latest.html") == "page.html")
            #expect(try String(contentsOfFile: page, encoding: .utf8).hasPrefix(#"{"seq":1,"record":"session_started""#))
            // No temporary file is left behind; `-` is standard output.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(names == ["latest.html", "left.eventtree", "left.eventtree-wal", "left.eventtree.lock", "page.html"])
            let printed = try Tool.run(["export", journal, "--format", "jsonl", "-o", "-"], in: directory)
            #expect(printed.status == 0)
            #expect(printed.stdout == (try String(contentsOfFile: page, encoding: .utf8)))
            let missing = try Tool.run(["report", journal, "-o", "nowhere/page.html"], in: directory)
            #expect(missing.status == 2)
            #expect(missing.stderr == "error: cannot write nowhere/page.html: No such file or directory; check the folder and its permissions\n")
        }
    }

    /// The null device's number, major 1 and minor 3 (Swift does not import `makedev`).
    #if os(Linux)
    static let nullDevice = dev_t(1 << 8 | 3)
    #else
    static let nullDevice = dev_t(1 << 24 | 3)
    #endif

    /// A Unix socket bound at `path`, as a server leaves it.
    static func listeningSocket(at path: String) throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        return descriptor
    }
}
