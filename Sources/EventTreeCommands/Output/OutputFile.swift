import Foundation

/// A file a command writes its result to, atomically, never over the journal it read.
struct OutputFile {
    let path: String

    /// Writes `text`, refusing when the file is `journal` itself.
    func write(_ text: String, notOver journal: String) throws {
        let url = URL(fileURLWithPath: path)
        if url.standardizedFileURL.resolvingSymlinksInPath() == URL(fileURLWithPath: journal).standardizedFileURL.resolvingSymlinksInPath() {
            throw CommandFailure(message: "\(path) is the journal itself; choose another --output")
        }
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw CommandFailure(message: "cannot write \(path): \((error as NSError).localizedDescription)")
        }
    }
}
