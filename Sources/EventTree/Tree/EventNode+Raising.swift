extension EventNode {
    /// Raises `event` at this node and delivers it synchronously on this thread along the
    /// route `mode` computes.
    ///
    /// ```swift
    /// let result = settings.raise(LoggedIn(user: "ada"))
    /// if case .consumed(let site) = result.status { print("stopped by \(site.label)") }
    /// ```
    /// - Parameters:
    ///   - event: The event.
    ///   - mode: The route to take; ``DeliveryMode/bubble`` by default.
    ///   - policy: What a failing handler does to the route; it continues by default.
    ///   - isolation: The caller's actor, filled in by the compiler. Main-actor handlers
    ///     are called only when it is the main actor; elsewhere their calls are recorded as
    ///     failed (use ``raiseAsync(_:mode:onFailure:)`` to await them).
    /// - Returns: The event's id and how the raise ended.
    @inlinable @discardableResult
    public func raise<E: Event>(
        _ event: E, mode: DeliveryMode = .bubble, onFailure policy: FailurePolicy = .continue,
        isolation: isolated (any Actor)? = #isolation
    ) -> RaiseResult {
        // (The shared main actor is looked up only when the caller has an isolation.)
        let onMainActor = isolation != nil && isolation === MainActor.shared
        return DeliveryStack.unretainedCurrent._withUnsafeGuaranteedRef { stack in
            let box = stack.box(carrying: event)
            let result = bus.deliver(
                box, channel: .events, at: core, mode: mode, policy: policy, answerCheck: nil, onMainActor: onMainActor,
                cause: nil, inherited: nil, stack: stack)
            stack.recycle(box)
            return result
        }
    }

    /// Raises a request and returns the first answer, or an explicit
    /// ``RaiseStatus/unanswered`` status.
    ///
    /// ```swift
    /// let user = screen.request(CurrentUser()).answer
    /// ```
    @inlinable
    public func request<R: EventRequest>(
        _ request: R, mode: DeliveryMode = .bubble, onFailure policy: FailurePolicy = .continue,
        isolation: isolated (any Actor)? = #isolation
    ) -> RequestResult<R.Answer> {
        let onMainActor = isolation != nil && isolation === MainActor.shared
        return DeliveryStack.unretainedCurrent._withUnsafeGuaranteedRef { stack in
            let box = stack.box(carrying: request)
            let result = bus.deliver(
                box, channel: .events, at: core, mode: mode, policy: policy, answerCheck: { $0 is R.Answer },
                onMainActor: onMainActor, cause: nil, inherited: nil, stack: stack)
            stack.recycle(box)
            return RequestResult(raise: result)
        }
    }

    /// Reports an error at this node: it bubbles up on the error channel, where only error
    /// handlers see it. An error no handler catches goes to the bus's unhandled-error hook.
    @discardableResult
    public func report(_ error: any Error, isolation: isolated (any Actor)? = #isolation) -> RaiseResult {
        bus.deliver(makeBox(error), channel: .errors, at: core, mode: .bubble, onMainActor: isolation != nil && isolation === MainActor.shared)
    }

    /// Like ``raise(_:mode:onFailure:isolation:)``, but awaits main-actor handlers in route order, so
    /// that their outcomes still steer the route.
    @discardableResult
    public func raiseAsync<E: Event>(
        _ event: E, mode: DeliveryMode = .bubble, onFailure policy: FailurePolicy = .continue
    ) async -> RaiseResult {
        await bus.deliverAsync(makeBox(event), channel: .events, at: core, mode: mode, policy: policy)
    }

    /// Like ``request(_:mode:onFailure:isolation:)``, but awaits main-actor handlers in route order.
    public func requestAsync<R: EventRequest>(
        _ request: R, mode: DeliveryMode = .bubble, onFailure policy: FailurePolicy = .continue
    ) async -> RequestResult<R.Answer> {
        RequestResult(raise: await bus.deliverAsync(
            makeBox(request), channel: .events, at: core, mode: mode, policy: policy, answerCheck: { $0 is R.Answer }))
    }
}
