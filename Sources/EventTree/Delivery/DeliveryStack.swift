#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CEventTreeThread

/// The deliveries running on the current thread: the innermost one here, the outer ones
/// saved on their drivers' stacks (only the innermost is ever asked about).
///
/// A raise from inside a handler finds here the event it was raised for (its cause) and
/// the records of the outermost raise it belongs to, so that a nested raise is journaled
/// with its cause and in the same batch. It also keeps the thread's spare record batch (with
/// the buffer ``Recorder/record(emptying:session:)`` handed back) and its spare event boxes.
/// One per thread, never shared.
@usableFromInline
final class DeliveryStack {
    struct Frame {
        let bus: ObjectIdentifier
        var eventID: EventID
        /// How many deliveries of the bus are nested here, this one included (1: outermost).
        let depth: Int
        /// Unretained: the delivery that puts the frame on a stack holds its batch for as
        /// long as the frame is there (so a frame is plain data, saved and restored by copy).
        private let batchRef: Unmanaged<RecordBatch>?

        init(bus: ObjectIdentifier, eventID: EventID, batch: RecordBatch?, depth: Int) {
            self.bus = bus
            self.eventID = eventID
            self.depth = depth
            batchRef = batch.map { Unmanaged.passUnretained($0) }
        }

        /// The records of the outermost raise the delivery belongs to.
        var batch: RecordBatch? { batchRef?.takeUnretainedValue() }
    }

    /// The batch of this thread's last outermost recorded raise, emptied, its records the
    /// buffer the recorder handed back: the next outermost raise reuses both.
    private var spareBatch: RecordBatch?
    /// The buffer a recorder that takes arrays handed back (see ``Recorder/record(emptying:session:)``),
    /// for this thread's next raise recorded there. Used by its own thread only, so the
    /// per-access exclusivity check is left out.
    @exclusivity(unchecked) var spareRecords: [FactRecord]?
    /// How many records the batch this thread handed over last held: what the next one is
    /// likely to hold.
    private var spareRecordCount = 0

    /// Emptied event boxes for this thread's next raises, one slot per few box types (a
    /// type's box goes to the slot its class picks; a box of another type there is replaced).
    @usableFromInline let spareBoxes: UnsafeMutablePointer<AnyEventBox?>
    @usableFromInline static var spareBoxSlots: Int { 8 }

    init() {
        spareBoxes = .allocate(capacity: Self.spareBoxSlots)
        spareBoxes.initialize(repeating: nil, count: Self.spareBoxSlots)
    }

    deinit {
        spareBoxes.deinitialize(count: Self.spareBoxSlots)
        spareBoxes.deallocate()
    }

    /// The slot for boxes of the class `type`.
    @inlinable
    func slot(for type: ObjectIdentifier) -> UnsafeMutablePointer<AnyEventBox?> {
        spareBoxes + Int((UInt(bitPattern: type) >> 4) & UInt(Self.spareBoxSlots - 1))
    }

    /// Takes the spare box of the class `type`, if this thread has one.
    @inlinable
    func spareBox(ofType type: ObjectIdentifier) -> AnyEventBox? {
        let slot = slot(for: type)
        // Moved out and back rather than copied: no reference counting for a miss or a hit.
        let spare = slot.move()
        if let spare, ObjectIdentifier(Swift.type(of: spare)) == type {
            slot.initialize(to: nil)
            return spare
        }
        slot.initialize(to: spare)
        return nil
    }

    /// Keeps the emptied `box` for a later raise of its type on this thread.
    @inlinable
    func keepSpareBox(_ box: consuming AnyEventBox) {
        let slot = slot(for: ObjectIdentifier(type(of: box)))
        // Moved in, the slot's former box (if any) moved out and released.
        let former = slot.move()
        slot.initialize(to: consume box)
        _ = consume former
    }

    /// The batch for this thread's next outermost recorded raise: the spare one (emptied,
    /// holding the buffer its recorder handed back) when there is one, otherwise a new one;
    /// either way with room for as many records as the thread's last batch held, and (a new
    /// one) for a typical raise's. Out of line, so that the raise that
    /// inlines its caller carries only a call.
    @inline(never)
    func takeBatch() -> RecordBatch {
        let expected = spareRecordCount + 1
        let batch = spareBatch.take() ?? RecordBatch(capacity: max(16, expected))
        // A buffer with less room than this thread's last batch took (one that a smaller
        // batch handed back) is made larger at once rather than grown as records come.
        batch.reserve(expected)
        return batch
    }

    /// Keeps `batch`, whose `count` records were handed over, for this thread's next
    /// outermost raise (when there is not one already).
    func keepSpare(_ batch: consuming RecordBatch, handedOver count: Int) {
        spareRecordCount = count
        if spareBatch == nil { spareBatch = consume batch }
    }

    /// The error handlers whose conversions the innermost delivery descends from, innermost
    /// last: an error raised here must not be converted by them again (see
    /// ``DeliveryError/conversionLoop(label:eventType:)``). Empty unless an error was converted.
    var converting: [HandlerID] = []
    /// Whether this thread is handing a bus's queued changes to its recorder (see
    /// `EventBus.handOverChanges()`).
    var isHandingOverChanges = false

    /// What a delivery puts back when it ends: the frame and call it found innermost.
    struct Saved {
        fileprivate let frame: Frame?
        fileprivate let handler: HandlerID?
    }

    /// The innermost delivery on this thread. Used by its own thread only, so the
    /// per-access exclusivity check is left out.
    @exclusivity(unchecked) var innermost: Frame?
    /// The handler the innermost frame is calling, while one is (what a release during its
    /// call names): set once per call, put back by ``pop(restoring:)``.
    @exclusivity(unchecked) var handler: HandlerID?

    /// Makes `frame` the innermost, calling nothing yet; returns what ``pop(restoring:)``
    /// needs to put the outer frame and its call back.
    @inline(__always)
    func push(_ frame: Frame) -> Saved {
        let saved = Saved(frame: innermost, handler: handler)
        innermost = frame
        handler = nil
        return saved
    }

    /// Ends the innermost frame; `saved` is what ``push(_:)`` returned.
    @inline(__always)
    func pop(restoring saved: Saved) {
        innermost = saved.frame
        handler = saved.handler
    }

    /// The innermost delivery of `bus` on this thread, if it is the innermost of all.
    func innermost(of bus: ObjectIdentifier) -> Frame? {
        guard let innermost, innermost.bus == bus else { return nil }
        return innermost
    }

    /// The handler call in progress on this thread for `bus`, if its innermost delivery is
    /// calling one.
    func callInProgress(on bus: ObjectIdentifier) -> HandlerCallSite? {
        guard let frame = innermost(of: bus), let handler else { return nil }
        return HandlerCallSite(event: frame.eventID, handler: handler)
    }

    /// This thread's stack.
    @usableFromInline
    static var current: DeliveryStack { unretainedCurrent.takeUnretainedValue() }

    /// This thread's stack, unretained (the thread holds it until it exits): a raise uses it
    /// through `_withUnsafeGuaranteedRef`, without retaining and releasing it.
    @usableFromInline
    static var unretainedCurrent: Unmanaged<DeliveryStack> {
        if let pointer = eventtree_current_delivery_stack() { return Unmanaged.fromOpaque(pointer) }
        return makeCurrent()
    }

    /// Makes this thread's stack, held by the thread (through `key`) until it exits.
    private static func makeCurrent() -> Unmanaged<DeliveryStack> {
        let stack = Unmanaged.passRetained(DeliveryStack())
        pthread_setspecific(key, stack.toOpaque())
        eventtree_set_current_delivery_stack(stack.toOpaque())
        return stack
    }

    /// The key whose destructor releases a thread's stack when the thread exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { argument in
            // Optional on Glibc and Musl, non-optional on Darwin: typed here so that one
            // closure compiles on both.
            let pointer: UnsafeMutableRawPointer? = argument
            guard let pointer else { return }
            // A raise after this (from another key's destructor) makes a new stack.
            eventtree_set_current_delivery_stack(nil)
            Unmanaged<DeliveryStack>.fromOpaque(pointer).release()
        }
        return key
    }()
}
