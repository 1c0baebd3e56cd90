import CFuzzSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs libFuzzer's driver with the process's arguments, calling `testOneInput` (a fuzz
/// target's `LLVMFuzzerTestOneInput`) on every input, then exits with its status.
///
/// The fuzz targets are ordinary executables whose `main.swift` calls this, rather than
/// executables that take libFuzzer's `main` (see Package.swift).
public func runLibFuzzer(_ testOneInput: @escaping (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    target = testOneInput
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let target else { return 0 }
        guard let data else { return withUnsafePointer(to: UInt8(0)) { target($0, 0) } }
        return target(data, size)
    })
}

/// The target `runLibFuzzer` runs (set once, before libFuzzer starts, on its one thread).
nonisolated(unsafe) private var target: ((UnsafePointer<UInt8>, Int) -> CInt)?

/// Stops the process with `message` when `condition` is false: a broken promise is a crash
/// for libFuzzer, as a trap is. (`precondition` prints nothing in optimized builds.)
public func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

/// Stops the process with `message`.
public func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fuzz target: \(message)\n".utf8))
    abort()
}
