#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The thread a raise ran on, as the journal numbers it: small numbers, dense per process
/// in the order threads first hand the journal a raise, with the name the thread had then.
enum RaisingThread {
    /// The calling thread's number (0 means not numbered yet).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let names = Mutex<[String]>([])

    /// The calling thread's number: one thread-specific read once numbered.
    static var current: Int {
        if let value = pthread_getspecific(key) { return Int(bitPattern: value) }
        return numberCurrentThread()
    }

    /// The name thread `number` had when it was numbered.
    static func name(of number: Int) -> String {
        names.withLock { number >= 1 && number <= $0.count ? $0[number - 1] : "thread \(number)" }
    }

    /// The calling thread's name as the system knows it (Dispatch names its workers).
    private static func systemName() -> String {
        #if canImport(Darwin)
        var buffer = [CChar](repeating: 0, count: 64)
        guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        // Glibc's pthread_getname_np is not visible to Swift; the kernel says the same.
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        #endif
    }

    private static func numberCurrentThread() -> Int {
        var name = Thread.isMainThread ? "main" : ""
        if name.isEmpty { name = systemName() }
        let number = names.withLock { names in
            names.append(name)
            return names.count
        }
        if name.isEmpty { names.withLock { $0[number - 1] = "thread \(number)" } }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: number))
        return number
    }
}
