import EventTree
import Tracing

/// What a ``TracingRecorder`` remembers between batches to name things in spans: the tree
/// (paths at any recent sequence number), the handlers (labels, registration sites) and
/// the sessions (where their monotonic clock sits on the wall clock).
///
/// Guarded by the recorder's lock; never calls out.
struct RecordedWorld {
    /// What a span needs of a handler.
    struct Handler {
        let label: String
        let location: String
    }

    /// Where a session's bus clock sits on the wall clock.
    struct SessionClock {
        /// Wall-clock nanoseconds since 1970 at the session's start.
        let wallNanoseconds: Int
        /// The bus clock's monotonic reading at the same moment.
        let monotonicNanoseconds: Int

        init(_ info: SessionInfo) {
            let seconds = info.startedAt.rounded(.down)
            wallNanoseconds = Int(seconds) * 1_000_000_000 + Int(((info.startedAt - seconds) * 1e9).rounded())
            monotonicNanoseconds = info.startedAtNanoseconds
        }

        /// For records of a session whose start the recorder never saw: the system's clocks
        /// now (the bus's default clock reads the same monotonic clock).
        static func systemNow() -> SessionClock {
            SessionClock(wall: Int(DefaultTracerClock.now.nanosecondsSinceEpoch), monotonic: EventTree.monotonicNanoseconds())
        }

        private init(wall: Int, monotonic: Int) {
            wallNanoseconds = wall
            monotonicNanoseconds = monotonic
        }

        /// Nanoseconds since 1970 of the bus clock's reading `nanoseconds`.
        func wall(_ nanoseconds: Int) -> UInt64 {
            UInt64(clamping: wallNanoseconds &+ (nanoseconds &- monotonicNanoseconds))
        }
    }

    private(set) var tree = TreeHistory()
    private var handlers: [HandlerID: Handler] = [:]
    private var sessions: [SessionID: SessionClock] = [:]
    private var retirements: Retirements

    init(retention: Int) {
        retirements = Retirements(retention: retention)
    }

    /// Takes in a fact that changes what later facts mean (tree, handlers, sessions);
    /// other facts are left alone.
    mutating func apply(_ record: FactRecord) {
        switch record.fact {
        case .sessionStarted(let info):
            sessions[info.id] = SessionClock(info)
        case .sessionEnded(let session, _):
            // Records of raises still running may come after the session's end.
            retire(.session(session))
        case .handlerAdded(let registration):
            handlers[registration.id] = Handler(label: registration.label, location: registration.location)
        case .handlerRemoved(let handler):
            retire(.handler(handler))
        case .nodeCreated, .nodeAttached, .nodeDetached, .nodeMoved, .nodeRenamed, .nodeReleased:
            if let entry = tree.apply(record.fact, seq: record.seq) { retire(entry) }
        case .handlerMatched, .raised, .handlerCalled, .stepUndelivered, .raiseFinished, .deadLetter, .unhandledError:
            break
        }
    }

    private mutating func retire(_ entry: Retirements.Entry) {
        for dropped in retirements.add(entry) {
            switch dropped {
            case .handler(let handler): handlers[handler] = nil
            case .session(let session): sessions[session] = nil
            case .version, .node: tree.forget(dropped)
            }
        }
    }

    /// The handler registered as `id`, if known.
    func handler(_ id: HandlerID) -> Handler? { handlers[id] }

    /// The clock of `session`, if its start was recorded here.
    func clock(of session: SessionID) -> SessionClock? { sessions[session] }
}
