import EventTree
import EventTreeReplay

/// The stable JSON shapes of replay results (documented in the DocC article The eventtree tool).
enum FindingEncoding {
    static func site(_ site: StepHandler?) -> JSONValue {
        guard let site else { return .null }
        return .object([
            ("handler_id", .integer(site.handler.rawValue)), ("label", .string(site.label)),
            ("location", .string(site.location)), ("node_path", .string(site.nodePath)),
            ("phase", .string(site.phase.description)),
        ])
    }

    static func finding(_ finding: ReplayFinding) -> JSONValue {
        .object([
            ("event_id", .integer(finding.event.id.rawValue)),
            ("session_id", .integer(finding.event.session.rawValue)),
            ("event_type", .string(finding.event.typeName)),
            ("kind", .string(finding.event.kind.description)),
            ("mode", .string(finding.event.mode.description)),
            ("origin_path", .string(finding.originPath)),
            ("classification", .string(finding.classification.rawValue)),
            ("result", .string(finding.event.result.rawValue)),
            ("summary", .string(finding.summary)),
            ("stopped_by", site(finding.stoppedBy)),
            ("failure", finding.failure.map { .object([("handler", site($0.site)), ("message", .string($0.message))]) } ?? .null),
            ("never_saw", .array(finding.neverSaw.map(JSONValue.string))),
            ("missed_handlers", .array(finding.missedHandlers.map(site))),
            ("lost_steps", .array(finding.lostSteps.map { step in
                .object([("node_path", .string(step.nodePath)), ("phase", .string(step.phase.description)),
                         ("lost_calls", .integer(step.lostCalls))])
            })),
            ("divergence", finding.divergence.map { divergence in
                .object([("step", .integer(divergence.stepIndex + 1)), ("expected", .string(divergence.expected)),
                         ("recorded", .string(divergence.recorded))])
            } ?? .null),
            ("transforms", .array(finding.transforms.map { .integer($0.rawValue) })),
            ("calls", .integer(finding.calls)),
        ])
    }

    static func explanation(_ explanation: Explanation) -> JSONValue {
        .object([
            ("event", finding(explanation.finding)),
            ("variation", JSONValue(explanation.variation)),
            ("steps", .array(explanation.steps.map { step in
                .object([
                    ("step", .integer(step.number)), ("node_path", .string(step.nodePath)),
                    ("phase", .string(step.phase.description)), ("reach", .string(step.reach.description)),
                    ("calls", .array(step.calls.map { call in
                        .object([("handler", site(call.handler)), ("outcome", .string(call.outcomeDescription))])
                    })),
                    ("skipped", .array(step.skipped.map { skipped in
                        .object([("label", .string(skipped.label)), ("location", .string(skipped.location)),
                                 ("reason", .string(skipped.reason))])
                    })),
                    ("lost", .array(step.lost.map(site))),
                ])
            })),
            ("node", explanation.node.map { verdict in
                .object([("node_path", .string(verdict.nodePath)), ("received", .bool(verdict.received)),
                         ("reason", .string(verdict.reason.rawValue)), ("summary", .string(verdict.summary))])
            } ?? .null),
            ("causes", .array(explanation.causes.map(link))),
            ("omitted_causes", .integer(explanation.omittedCauses)),
            ("consequences", .array(explanation.consequences.map(link))),
        ])
    }

    static func link(_ link: CauseLink) -> JSONValue {
        .object([
            ("event_id", .integer(link.event.rawValue)), ("event_type", .string(link.typeName)),
            ("kind", .string(link.kind.description)), ("relation", .string(link.relation.rawValue)),
            ("from_event_id", JSONValue(link.from?.rawValue)), ("depth", .integer(link.depth)),
            ("result", .string(link.result.rawValue)),
        ])
    }
}
