/// A recorder that takes a raise's records as a ``RecordBatch``, leaving the batch empty
/// with room for the thread's next raise (a journal: it exchanges the batch's contents with
/// a batch it emptied, under the lock it takes anyway).
///
/// Within the package only: a bus hands a batch to its recorder this way when the recorder
/// is one, and as an array through ``Recorder/record(emptying:session:)`` otherwise.
package protocol BatchRecorder: Recorder {
    /// Takes the records in `batch`, as ``Recorder/record(_:session:)`` takes an array's,
    /// leaving `batch` empty (records taken or not), with room for the thread's next raise.
    func record(takingFrom batch: RecordBatch, session: SessionID) -> RecordingStatus
}
