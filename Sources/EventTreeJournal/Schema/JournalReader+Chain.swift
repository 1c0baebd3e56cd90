import EventTree

/// One chained record as read: its seq and canonical bytes (see ``ChainEncoder``).
package struct ChainedRecord {
    package let seq: Int
    package let bytes: [UInt8]
}

/// A checkpoint row of the hash chain.
package struct StoredCheckpoint {
    /// The seq of the last record it covers.
    package let upto: Int
    /// How many records it covers (since the previous checkpoint).
    package let records: Int
    /// The chain's hash after its last record.
    package let hash: [UInt8]
    /// Two bytes per record, locating the first that differs (see ``ChainRule``).
    package let tags: [UInt8]
    /// How it chains its records; `nil` for a number this version does not know.
    package let rule: ChainRule?
}

extension JournalReader {
    /// The hash chain's checkpoints, in order.
    package func checkpoints() throws(JournalError) -> [StoredCheckpoint] {
        var checkpoints: [StoredCheckpoint] = []
        try each("SELECT upto_seq, records, hash, tags, rule FROM j_chain ORDER BY upto_seq") { row throws(JournalError) in
            checkpoints.append(StoredCheckpoint(
                upto: row.int(0), records: row.int(1), hash: row.bytes(2) ?? [], tags: row.bytes(3) ?? [],
                rule: ChainRule(rawValue: row.int(4))))
        }
        return checkpoints
    }

    /// Every record of the journal from `seq` on, as the hash chain sees it, in seq order;
    /// a row that belongs to no record (an inserted detail, release or snapshot) comes as a
    /// record of its own that can match nothing.
    package func chainRecords(from seq: Int = 0) throws(JournalError) -> JournalStream<ChainedRecord> {
        let from: [JournalValue] = [.integer(seq)]
        var sources: [JournalStream<ChainedRecord>] = []
        let encoder = ChainEncoder()

        func stream(
            _ sql: String, _ encode: @escaping (JournalRow, ChainEncoder) throws(JournalError) -> Void
        ) throws(JournalError) -> JournalStream<ChainedRecord> {
            let rows = try cursor(sql, from)
            return try JournalStream { () throws(JournalError) in
                guard rows.hasRow else { return nil }
                let seq = rows.row.int(0)
                try encode(rows.row, encoder)
                let record = ChainedRecord(seq: seq, bytes: Array(encoder.bytes))
                try rows.advance()
                return record
            }
        }

        sources.append(try stream(
            "SELECT session_id, started_at, process, host, app_version FROM j_sessions WHERE session_id >= ? ORDER BY session_id"
        ) { row, encoder in
            encoder.sessionStarted(
                seq: row.int(0), startedAt: row.double(1), process: row.text(2) ?? "", host: row.text(3) ?? "",
                appVersion: row.text(4))
        })
        sources.append(try stream(
            "SELECT ended_seq, session_id, ended_at FROM j_sessions WHERE ended_seq >= ? ORDER BY ended_seq"
        ) { row, encoder in
            encoder.sessionEnded(seq: row.int(0), session: row.int(1), endedAt: row.isNull(2) ? nil : row.double(2))
        })
        sources.append(try stream("""
            SELECT c.seq, c.node_id, c.change, c.parent_id, c.position, c.name, n.session_id, r.event_id, r.handler_no,
                   t.nodes
            FROM j_changes c
            LEFT JOIN j_nodes n ON n.node_id = c.node_id AND c.change = 0
            LEFT JOIN j_releases r ON r.seq = c.seq AND c.change = 5
            LEFT JOIN j_tree_snapshots t ON t.seq = c.seq
            WHERE c.seq >= ? ORDER BY c.seq
            """) { row, encoder throws(JournalError) in
            encoder.treeChange(
                seq: row.int(0), node: row.int(1), change: row.int(2), parent: row.optionalInt(3),
                position: row.optionalInt(4), name: row.text(5), session: row.optionalInt(6),
                releasedBy: row.isNull(7) ? nil : (row.int(7), row.int(8)), snapshot: row.text(9))
        })
        // Placeholder rows (a handler whose registration never reached the journal) are
        // written when first needed, out of seq order, and are not chained.
        sources.append(try stream("""
            SELECT h.handler_id, h.handler_no, h.node_id, t.name, h.channel, h.phases, h.label, h.file, h.line
            FROM j_handlers h LEFT JOIN j_types t ON t.type_id = h.type_id
            WHERE h.handler_id >= ? AND NOT (h.label = '\(RowWriter.placeholderLabel)' AND h.file = '?' AND h.line = 0)
            ORDER BY h.handler_id
            """) { row, encoder in
            encoder.handlerAdded(
                seq: row.int(0), number: row.int(1), node: row.int(2), eventType: row.text(3), channel: row.int(4),
                phases: row.int(5), label: row.text(6) ?? "", file: row.text(7) ?? "", line: row.int(8))
        })
        sources.append(try stream(
            "SELECT removed_seq, handler_id FROM j_handlers WHERE removed_seq >= ? ORDER BY removed_seq"
        ) { row, encoder in
            encoder.handlerRemoved(seq: row.int(0), handler: row.int(1))
        })
        sources.append(try stream(
            "SELECT m.seq, m.handler_no, t.name FROM j_matches m LEFT JOIN j_types t ON t.type_id = m.type_id WHERE m.seq >= ? ORDER BY m.seq"
        ) { row, encoder in
            encoder.handlerMatched(seq: row.int(0), number: row.int(1), eventType: row.text(2))
        })
        sources.append(try stream("""
            SELECT e.event_id, e.session_id, t.name, e.kind, e.origin_id, e.mode, e.payload, e.finished_back, e.result,
                e.raised_us, x.cause_id, x.transformed_from, x.stop_handler_no, x.stop_node_id, x.stop_phase, x.message,
                coalesce(x.lost_calls, 0), coalesce(x.on_failure, 0), e.thread_no, th.name
            FROM j_events e LEFT JOIN j_types t ON t.type_id = e.type_id LEFT JOIN j_event_details x ON x.event_id = e.event_id
                LEFT JOIN j_threads th ON th.session_id = e.session_id AND th.thread_no = e.thread_no
            WHERE e.event_id >= ? ORDER BY e.event_id
            """) { row, encoder in
            encoder.raise(
                seq: row.int(0), session: row.int(1), eventType: row.text(2), kind: row.int(3), origin: row.int(4),
                mode: row.int(5), payload: row.bytes(6), finishedBack: row.optionalInt(7), result: row.optionalInt(8),
                raisedMicroseconds: row.optionalInt(9), cause: row.optionalInt(10), transformedFrom: row.optionalInt(11),
                stopHandler: row.optionalInt(12), stopNode: row.optionalInt(13), stopPhase: row.optionalInt(14),
                message: row.text(15), lostCalls: row.int(16), onFailure: row.int(17), thread: row.optionalInt(18),
                threadName: row.text(19))
        })
        sources.append(try stream(
            "SELECT unattended_seq, event_id FROM j_event_details WHERE unattended_seq >= ? ORDER BY unattended_seq"
        ) { row, encoder in
            encoder.unattended(seq: row.int(0), event: row.int(1))
        })
        // A call with its detail (a second cursor, merged by seq); a run that does not
        // decode, and a detail of no call, each come as a record that matches nothing.
        let calls = try packedCalls(in: max(seq, 1)...Int.max, marksMalformed: true)
        let details = try cursor("SELECT seq, text FROM j_call_details WHERE seq >= ? ORDER BY seq", from)
        sources.append(try JournalStream { () throws(JournalError) in
            let callSeq = calls.current?.seq ?? Int.max
            if details.hasRow, details.row.int(0) < callSeq {
                let orphan = ChainedRecord(seq: details.row.int(0), bytes: [0xFF])
                try details.advance()
                return orphan
            }
            guard let call = calls.current else { return nil }
            try calls.advance()
            guard !call.isMalformed else { return ChainedRecord(seq: call.seq, bytes: [0xFF]) }
            var detail: String?
            if details.hasRow, details.row.int(0) == call.seq {
                detail = details.row.text(1)
                try details.advance()
            }
            encoder.call(
                seq: call.seq, handler: call.handlerNumber, code: call.code, nanoseconds: call.nanoseconds,
                offsetMicroseconds: call.offsetMicroseconds, detail: detail)
            return ChainedRecord(seq: call.seq, bytes: Array(encoder.bytes))
        })
        let lost = try cursor("SELECT seq, handler_no FROM j_lost_calls WHERE seq >= ? ORDER BY seq, handler_no", from)
        sources.append(try stream(
            "SELECT seq, event_id, node_id, phase, lost_calls FROM j_undelivered WHERE seq >= ? ORDER BY seq"
        ) { row, encoder throws(JournalError) in
            let seq = row.int(0)
            var handlers: [Int] = []
            while lost.hasRow, lost.row.int(0) <= seq {
                if lost.row.int(0) == seq { handlers.append(lost.row.int(1)) }
                try lost.advance()
            }
            encoder.undelivered(
                seq: seq, event: row.int(1), node: row.int(2), phase: row.int(3), lostCalls: row.int(4),
                lostHandlers: handlers)
        })
        sources.append(try stream(
            "SELECT seq, session_id, at, kind, message, records FROM j_trouble WHERE seq >= ? ORDER BY seq"
        ) { row, encoder in
            encoder.trouble(
                seq: row.int(0), session: row.optionalInt(1), at: row.double(2), kind: row.text(3) ?? "",
                message: row.text(4) ?? "", records: row.int(5))
        })
        sources.append(try stream(
            "SELECT seq, pruned_at, through_seq, hash, sessions, records, reason FROM j_prunes WHERE seq >= ? ORDER BY seq"
        ) { row, encoder in
            encoder.pruned(
                seq: row.int(0), prunedAt: row.double(1), throughSeq: row.int(2), hash: row.bytes(3) ?? [],
                sessions: row.int(4), records: row.int(5), reason: row.text(6) ?? "")
        })
        // Rows that belong to no record (or, a snapshot, to another session than its
        // change's node): each comes as a record that matches nothing.
        let orphans = try cursor("""
            SELECT seq FROM (
                SELECT seq FROM j_lost_calls WHERE seq NOT IN (SELECT seq FROM j_undelivered)
                UNION ALL SELECT seq FROM j_releases WHERE seq NOT IN (SELECT seq FROM j_changes WHERE change = 5)
                UNION ALL SELECT event_id FROM j_event_details WHERE event_id NOT IN (SELECT event_id FROM j_events)
                UNION ALL SELECT node_id FROM j_nodes WHERE node_id NOT IN (SELECT seq FROM j_changes WHERE change = 0)
                UNION ALL SELECT seq FROM j_tree_snapshots WHERE seq NOT IN (SELECT seq FROM j_changes)
                UNION ALL SELECT t.seq FROM j_tree_snapshots t JOIN j_changes c ON c.seq = t.seq
                    JOIN j_nodes n ON n.node_id = c.node_id WHERE n.session_id IS NOT t.session_id)
            WHERE seq >= ? ORDER BY seq
            """, from)
        sources.append(try JournalStream { () throws(JournalError) in
            guard orphans.hasRow else { return nil }
            let record = ChainedRecord(seq: orphans.row.int(0), bytes: [0xFF])
            try orphans.advance()
            return record
        })
        return try .merging(sources, seq: \.seq)
    }
}
