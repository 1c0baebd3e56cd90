#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Checks a journal path before SQLite sees it.
enum JournalFile {
    /// Resolves `path` to an absolute path of a regular file (or, for writing, of a file
    /// that may not exist yet).
    ///
    /// Debian's SQLite reads a name starting with `file:` as a URI, a FIFO would hang the
    /// open, and an empty file would open as an empty database: each is refused here.
    static func resolve(_ path: String, forWriting: Bool) throws(JournalError) -> String {
        if path.hasPrefix("file:") { throw .uriPath(path: path) }
        guard !path.isEmpty else { throw .missing(path: path) }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var info = stat()
        guard stat(absolute, &info) == 0 else {
            if forWriting && errno == ENOENT { return absolute }
            throw .missing(path: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            throw .notAFile(path: path, kind: "a directory")
        case S_IFIFO:
            throw .notAFile(path: path, kind: "a FIFO")
        case S_IFCHR, S_IFBLK:
            throw .notAFile(path: path, kind: "a device")
        case S_IFSOCK:
            throw .notAFile(path: path, kind: "a socket")
        default:
            throw .notAFile(path: path, kind: "not a regular file")
        }
        if info.st_size == 0 && !forWriting { throw .empty(path: path) }
        return absolute
    }
}
