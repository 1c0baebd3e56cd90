extension EventNode {
    /// Registers a handler for events of type `type` (or conforming to it, when it is a
    /// protocol).
    ///
    /// ```swift
    /// settings.on(LoggedIn.self, label: "greet") { event, context in
    ///     print("hello \(event.user)")
    ///     return .handled
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The event type, or a protocol refining ``Event``.
    ///   - phases: The phases to listen in; every phase but capture by default.
    ///   - label: A name for the handler in the journal and in explanations.
    ///   - fileID: Where the handler is registered, filled in by the compiler.
    ///   - line: The line it is registered on, filled in by the compiler.
    ///   - handler: Returns what it did; throwing records a failure and raises the error.
    /// - Returns: A token that removes exactly this handler.
    /// - Precondition: `type` is an ``Event`` type or a protocol type: a handler for a
    ///   concrete type that is not an event (`on(Int.self)`) could never be called, and
    ///   stops the program at registration, naming the file and line.
    @inlinable @discardableResult
    public func on<E: Sendable>(
        _ type: E.Type, phases: Phases = .standard, label: String? = nil,
        fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (E, HandlerContext) throws -> Outcome
    ) -> HandlerToken {
        Self.requireMatchable(E.self, channel: .events, fileID: fileID, line: line)
        return register(
            typeName: String(describing: type), channel: .events, phases: phases, label: label, fileID: fileID,
            line: line, body: .anyThread(handler))
    }

    /// Registers a main-actor handler for events of type `type`.
    ///
    /// A synchronous raise on the main actor calls it at once, and
    /// ``raiseAsync(_:mode:onFailure:)`` awaits it in route order. A synchronous raise made
    /// elsewhere (a background thread, a `DispatchQueue`) fails the call by default; with
    /// `whenRaisedElsewhere: .enqueue` it enqueues the call on the main actor instead:
    ///
    /// ```swift
    /// feed.onMainActor(PostsLoaded.self, label: "render", whenRaisedElsewhere: .enqueue) { event, _ in
    ///     screen.show(event.posts)   // on the main actor, after the raise
    ///     return .handled
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The event type, or a protocol refining ``Event``.
    ///   - phases: The phases to listen in; every phase but capture by default.
    ///   - label: A name for the handler in the journal and in explanations.
    ///   - whenRaisedElsewhere: What a synchronous raise off the main actor does with the
    ///     call: ``WhenRaisedElsewhere/fail`` (the default) or ``WhenRaisedElsewhere/enqueue``.
    ///   - fileID: Where the handler is registered, filled in by the compiler.
    ///   - line: The line it is registered on, filled in by the compiler.
    ///   - handler: Returns what it did; throwing records a failure and raises the error.
    /// - Returns: A token that removes exactly this handler.
    @inlinable @discardableResult
    public func onMainActor<E: Sendable>(
        _ type: E.Type, phases: Phases = .standard, label: String? = nil,
        whenRaisedElsewhere: WhenRaisedElsewhere = .fail, fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @MainActor @Sendable (E, HandlerContext) throws -> Outcome
    ) -> HandlerToken {
        Self.requireMatchable(E.self, channel: .events, fileID: fileID, line: line)
        return register(
            typeName: String(describing: type), channel: .events, phases: phases, label: label, fileID: fileID,
            line: line, body: .mainActor(whenRaisedElsewhere: whenRaisedElsewhere, handler))
    }

    /// Registers a handler for every event and request (never errors: they have their own
    /// channel, see ``onError(_:phases:label:fileID:line:_:)``).
    @discardableResult
    public func onAny(
        phases: Phases = .standard, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (any Event, HandlerContext) throws -> Outcome
    ) -> HandlerToken {
        register(
            typeName: nil, channel: .events, phases: phases, label: label, fileID: fileID, line: line,
            body: .anyValue(handler))
    }

    /// Registers an error handler: it sees errors of type `type` reported at or below
    /// this node (by ``report(_:isolation:)``, or thrown by handlers). `type` may be a
    /// protocol (`(any Alertable).self`): every error conforming to it matches, as with
    /// ``on(_:phases:label:fileID:line:_:)``.
    ///
    /// Return ``Outcome/handled`` or ``Outcome/consumed`` to catch the error;
    /// ``Outcome/transformedError(_:)`` to go on with another error (later error handlers
    /// see it, typed ones by its type); or ``Outcome/transformed(_:)`` to convert it into
    /// an ordinary event raised from this node in bubble mode. An error handler that throws
    /// is recorded as failed and does not catch the error (nothing is raised for its own
    /// error). Errors cannot loop: a handler never converts twice in one cause chain (see
    /// ``DeliveryError/conversionLoop(label:eventType:)``).
    @inlinable @discardableResult
    public func onError<E: Sendable>(
        _ type: E.Type, phases: Phases = .standard, label: String? = nil,
        fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (E, HandlerContext) throws -> Outcome
    ) -> HandlerToken {
        Self.requireMatchable(E.self, channel: .errors, fileID: fileID, line: line)
        return register(
            typeName: String(describing: type), channel: .errors, phases: phases, label: label,
            fileID: fileID, line: line, body: .anyThread(handler))
    }

    /// Registers an error handler for every error reported at or below this node.
    /// See ``onError(_:phases:label:fileID:line:_:)``.
    @discardableResult
    public func onError(
        phases: Phases = .standard, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (any Error, HandlerContext) throws -> Outcome
    ) -> HandlerToken {
        register(
            typeName: nil, channel: .errors, phases: phases, label: label, fileID: fileID, line: line,
            body: .anyValue(handler))
    }

    /// Stops a registration that could never be called: a concrete type that is not an
    /// ``Event`` (events) or not an `Error` (errors). Swift cannot say so at compile time,
    /// because `on(_:)` also takes protocol types (`(any Trackable).self`), which no
    /// generic constraint can tell from a concrete type; protocol types are let through,
    /// since events or errors may adopt them.
    @usableFromInline
    static func requireMatchable(_ type: Any.Type, channel: HandlerRegistration.Channel, fileID: String, line: Int) {
        let matches = channel == .events ? type is any Event.Type : type is any Error.Type
        let name = String(describing: type)
        // A protocol type (`any P`, `any P & Q`, `Any`) has existential type metadata, whose
        // kind word is 0x303 (the Swift runtime's stable ABI: MetadataKind::Existential).
        let isProtocolType = unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: Int.self) == 0x303
        precondition(
            matches || isProtocolType,
            "\(fileID):\(line): on\(channel == .errors ? "Error" : "")(\(name).self) registers a handler that could never be called: \(name) is not \(channel == .errors ? "an Error" : "an Event"); make it conform, or register for a protocol the \(channel == .errors ? "errors" : "events") adopt")
    }

    @usableFromInline
    func register(
        typeName: String?, channel: HandlerRegistration.Channel, phases: Phases, label: String?, fileID: String,
        line: Int, body: HandlerBody
    ) -> HandlerToken {
        bus.addHandler(
            on: core, label: label ?? "\(typeName ?? (channel == .errors ? "error" : "any")) handler",
            eventType: typeName, channel: channel, phases: phases, fileID: fileID, line: line,
            body: body)
    }
}
