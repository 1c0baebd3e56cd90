internal import CEventTreeThread
import EventTree
import Foundation

/// The thread a raise ran on, as the journal numbers it: small numbers, dense per process
/// in the order threads first hand the journal a raise, with the name the thread had then.
enum RaisingThread {
    private static let names = ThreadNames()

    /// The calling thread's number: one thread-local load once numbered.
    static var current: Int {
        let number = eventtree_raising_thread_number()
        return number != 0 ? number : numberCurrentThread()
    }

    /// The number a synchronous raise on the main actor is journaled under, whatever thread
    /// ran it (the main actor need not run on the main thread): -1, named ``mainActorName``.
    static let mainActor = -1

    /// The name of ``mainActor``.
    static let mainActorName = "main actor"

    /// The number a raise made with `await` is journaled under, whatever threads its steps
    /// ran on: 0, named ``awaitedName``. Threads are numbered from 1.
    static let awaited = 0

    /// The name of ``awaited``.
    static let awaitedName = "awaited"

    /// The number a raise made where `isolation` says is journaled under, when it was
    /// handed over on thread `thread`.
    @inline(__always)
    static func number(of isolation: RaiseIsolation, on thread: Int?) -> Int? {
        switch isolation {
        case .mainActor: mainActor
        case .awaited: awaited
        case .elsewhere: thread
        }
    }

    /// The name thread `number` had when it was numbered.
    static func name(of number: Int) -> String {
        if number == mainActor { return mainActorName }
        if number == awaited { return awaitedName }
        return names.name(of: number) ?? "thread \(number)"
    }

    /// The calling thread's name as the system knows it (Dispatch names its workers).
    private static func systemName() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard eventtree_thread_name(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func numberCurrentThread() -> Int {
        var name = Thread.isMainThread ? "main" : ""
        if name.isEmpty { name = systemName() }
        let number = names.append(name)
        if name.isEmpty { names.rename(number, to: "thread \(number)") }
        eventtree_set_raising_thread_number(number)
        return number
    }
}

/// The names of the numbered threads, behind a pthread lock (`Synchronization.Mutex` waits on
/// futexes, which the thread sanitizer does not see, so it reports its users as races).
private final class ThreadNames: @unchecked Sendable {
    private let lock = Lock()
    private var names: [String] = []

    /// Numbers a thread called `name`: returns its number.
    func append(_ name: String) -> Int {
        lock.withLock {
            names.append(name)
            return names.count
        }
    }

    func rename(_ number: Int, to name: String) {
        lock.withLock { names[number - 1] = name }
    }

    func name(of number: Int) -> String? {
        lock.withLock { number >= 1 && number <= names.count ? names[number - 1] : nil }
    }
}
