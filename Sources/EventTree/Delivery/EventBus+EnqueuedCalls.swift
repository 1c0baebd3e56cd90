extension EventBus {
    /// Waits until every main-actor call enqueued so far by a synchronous raise made
    /// elsewhere (see ``WhenRaisedElsewhere/enqueue``) has run, and those they enqueue.
    ///
    /// ```swift
    /// DispatchQueue.global().async { feed.raise(PostsLoaded(posts: posts)) }
    /// …
    /// await bus.waitForEnqueuedCalls()   // in a test: "render" has run
    /// ```
    public func waitForEnqueuedCalls() async {
        await enqueuedCalls.wait()
    }

    /// Enqueues `handler`'s call with `box` on the main actor, where it runs after the raise
    /// that reached it (in `context`) off the main actor.
    func enqueueCall(to handler: HandlerEntry, carrying box: AnyEventBox, in context: HandlerContext) {
        enqueuedCalls.enqueued()
        // The task holds the box: a thread refills only a box it holds alone.
        Task { @MainActor in
            self.runEnqueuedCall(to: handler, carrying: box, in: context)
            self.enqueuedCalls.finished()
        }
    }

    /// Runs an enqueued call on the main actor and records it (unless its handler was
    /// removed or its node released in the meantime: then it records the step undelivered).
    /// The call is recorded in a batch of its own, with the raises made inside it (caused
    /// by its event) and, when it fails, its error raised from its node.
    @MainActor
    private func runEnqueuedCall(to handler: HandlerEntry, carrying box: AnyEventBox, in context: HandlerContext) {
        let stack = DeliveryStack.current
        // Numbered with the lock held, as a raise is: a session's end cannot come in between.
        let opened: Int? = isRecorded ? lock.withLock { state.isEnded ? nil : sequence.open() } : nil
        let recording = opened != nil
        let seq = opened ?? 0
        guard !handler.isRemoved, !handler.core.isReleased else {
            guard recording else { return }
            let batch = RecordBatch(capacity: 1)
            batch.append(FactRecord(seq: seq, fact: .stepUndelivered(
                context.eventID, node: context.nodeID, phase: context.phase, lostHandlers: [handler.id])))
            _ = handOver(batch, stack: stack)
            return
        }
        // Raises made inside the call are nested in it, caused by its event.
        let inner = recording ? RecordBatch() : nil
        let outerCall = stack.push(.init(bus: ObjectIdentifier(self), eventID: context.eventID, batch: inner, depth: 1))
        stack.handler = context.handler
        let started = recording ? clock.now() : 0
        let result = Result { try handler.body.call(box, context) }
        let ended = recording ? clock.now() : 0
        stack.pop(restoring: outerCall)

        // The call's record first: its seq opened the batch.
        let batch = recording ? RecordBatch() : nil
        if let batch, let inner {
            let outcome: Outcome.Kind
            let detail: HandlerCall.Detail?
            switch result {
            case .success(let returned):
                outcome = returned.kind
                detail = if case .answered(let answer) = returned { .answer(answer) } else { nil }
            case .failure(let error):
                outcome = .failed
                detail = .error(error)
            }
            batch.append(FactRecord(seq: seq, fact: .handlerCalled(HandlerCall(
                event: context.eventID, node: context.nodeID, phase: context.phase, handler: context.handler,
                outcome: outcome, startedAt: started, nanoseconds: ended &- started), detail: detail)))
            var nested: [FactRecord] = []
            inner.moveAll(appendingTo: &nested)
            batch.append(contentsOf: nested)
        }
        if case .failure(let error) = result {
            _ = deliver(
                makeBox(error), channel: .errors, at: handler.core, mode: .bubble, onMainActor: true, cause: context.eventID,
                inherited: .some(batch), stack: stack)
        }
        if let batch { _ = handOver(batch, stack: stack) }
    }
}
