-- EventTree journal, schema version 2: times, lost-call attribution, a settled seq.
--
-- Every raise and handler call gets a time, stored compactly as microseconds from its
-- session's start (raises) or from its event's raise (calls); the views add them to the
-- session's start and show ISO-8601 UTC times with a Z.

-- settled_seq: every record numbered below it is committed. Threads hand their records
-- over out of seq order, so a transaction may commit a lower seq after a higher one was
-- committed; a reader that follows the journal prints rows only below settled_seq and so
-- never skips one that commits late.
ALTER TABLE j_sequence ADD COLUMN settled_seq INTEGER NOT NULL DEFAULT 0;

-- The session's start on the bus's monotonic clock is kept by the writer only; rows store
-- offsets. NULL on rows written by version 1.
ALTER TABLE j_events ADD COLUMN raised_us INTEGER;   -- microseconds from the session's start
ALTER TABLE j_calls ADD COLUMN offset_us INTEGER;    -- microseconds from its event's raise

-- The handlers whose calls an undelivered step lost (one row each).
CREATE TABLE j_lost_calls (
    seq        INTEGER NOT NULL,                 -- the undelivered step
    handler_no INTEGER NOT NULL,
    PRIMARY KEY (seq, handler_no)
) WITHOUT ROWID;

-- What an event caused (explain walks causes both ways).
CREATE INDEX j_event_details_by_cause ON j_event_details (cause_id);

-- Who released a node during a handler call: the release's seq, the event being handled
-- and the handler.
CREATE TABLE j_releases (
    seq        INTEGER PRIMARY KEY,              -- the release (a j_changes row)
    event_id   INTEGER NOT NULL,
    handler_no INTEGER NOT NULL
);

DROP VIEW delivery_history;
DROP VIEW call_history;
DROP VIEW undelivered_history;
DROP VIEW event_history;
DROP VIEW sessions;
DROP VIEW journal_trouble;
DROP VIEW tree_changes;
DROP VIEW handler_registrations;

-- Every code is spelled out: a code the schema does not know reads as NULL, never as a
-- plausible word.

-- One row per handler call, in seq order (the first half of delivery_history).
CREATE VIEW call_history AS
SELECT c.seq AS seq,
       e.session_id AS session_id,
       e.event_id AS event_id,
       t.name AS event_type,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = h.node_id AND p.since_seq <= c.seq
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       CASE (c.code >> 3) & 3 WHEN 0 THEN 'capture' WHEN 1 THEN 'target' WHEN 2 THEN 'bubble' WHEN 3 THEN 'propagate' END AS phase,
       h.label AS handler_label,
       h.file || ':' || h.line AS handler_location,
       CASE c.code & 7 WHEN 0 THEN 'ignored' WHEN 1 THEN 'handled' WHEN 2 THEN 'consumed'
         WHEN 3 THEN 'consumedImmediately' WHEN 4 THEN 'transformed' WHEN 5 THEN 'answered'
         WHEN 6 THEN 'failed' WHEN 7 THEN 'transformedError' END AS outcome,
       CASE WHEN c.code & 7 = 6 THEN d.text END AS error,
       c.nanos AS duration_ns,
       CASE WHEN c.code & 7 = 5 THEN d.text END AS answer,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.started_at + (e.raised_us + c.offset_us) / 1000000.0, 'unixepoch') AS at
FROM j_calls c
JOIN j_events e ON e.event_id = c.seq - (c.code >> 5)
JOIN j_sessions s ON s.session_id = e.session_id
JOIN j_types t ON t.type_id = e.type_id
JOIN j_handlers h ON h.handler_no = c.handler_no
LEFT JOIN j_call_details d ON d.seq = c.seq;

-- One row per handler call that an undelivered step lost (or one row for the step when it
-- lost none), at the node's path when the event was raised; `error` says who released the
-- node when a handler did (the second half of delivery_history).
CREATE VIEW undelivered_history AS
SELECT u.seq AS seq,
       e.session_id AS session_id,
       e.event_id AS event_id,
       t.name AS event_type,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = u.node_id AND p.since_seq <= e.event_id
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       CASE u.phase WHEN 0 THEN 'capture' WHEN 1 THEN 'target' WHEN 2 THEN 'bubble' WHEN 3 THEN 'propagate' END AS phase,
       h.label AS handler_label,
       CASE WHEN h.handler_no IS NOT NULL THEN h.file || ':' || h.line END AS handler_location,
       'undelivered' AS outcome,
       (SELECT 'node released at seq ' || c.seq
               || coalesce(' by ' || rh.label || ' (' || rh.file || ':' || rh.line || ') handling event ' || r.event_id, '')
          FROM j_changes c LEFT JOIN j_releases r ON r.seq = c.seq LEFT JOIN j_handlers rh ON rh.handler_no = r.handler_no
         WHERE c.node_id = u.node_id AND c.change = 5) AS error,
       NULL AS duration_ns,
       NULL AS answer,
       NULL AS at
FROM j_undelivered u
JOIN j_events e ON e.event_id = u.event_id
JOIN j_types t ON t.type_id = e.type_id
LEFT JOIN j_lost_calls l ON l.seq = u.seq
LEFT JOIN j_handlers h ON h.handler_no = l.handler_no;

-- One row per handler call or undelivered step.
CREATE VIEW delivery_history AS
SELECT * FROM call_history
UNION ALL
SELECT * FROM undelivered_history;

CREATE VIEW event_history AS
SELECT e.event_id AS event_id,
       e.event_id AS seq,
       e.session_id AS session_id,
       t.name AS event_type,
       CASE e.mode WHEN 0 THEN 'bubble' WHEN 1 THEN 'broadcast' WHEN 2 THEN 'dispatch' WHEN 3 THEN 'descend'
         WHEN 4 THEN 'descend:firstHandler' WHEN 5 THEN 'descend:deepestLevel' END AS mode,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = e.origin_id AND p.since_seq <= e.event_id
         ORDER BY p.since_seq DESC LIMIT 1) AS origin_path,
       x.cause_id AS cause_event_id,
       x.transformed_from AS transformed_from_event_id,
       e.payload AS payload,
       CASE
         WHEN e.result IS NULL THEN 'lost'
         WHEN e.result IN (0, 3, 4) AND x.lost_calls > 0 THEN 'lost'
         ELSE CASE e.result WHEN 0 THEN 'delivered' WHEN 1 THEN 'consumed' WHEN 2 THEN 'answered'
           WHEN 3 THEN 'unanswered' WHEN 4 THEN 'unhandled' WHEN 5 THEN 'failed' END
       END AS result,
       CASE e.kind WHEN 0 THEN 'event' WHEN 1 THEN 'request' WHEN 2 THEN 'error' END AS kind,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.started_at + e.raised_us / 1000000.0, 'unixepoch') AS raised_at
FROM j_events e
JOIN j_sessions s ON s.session_id = e.session_id
JOIN j_types t ON t.type_id = e.type_id
LEFT JOIN j_event_details x ON x.event_id = e.event_id;

CREATE VIEW tree_changes AS
SELECT c.seq AS seq,
       n.session_id AS session_id,
       CASE c.change WHEN 0 THEN 'created' WHEN 1 THEN 'attached' WHEN 2 THEN 'detached' WHEN 3 THEN 'moved'
         WHEN 4 THEN 'renamed' WHEN 5 THEN 'released' END AS change,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = c.node_id AND p.since_seq <= c.seq
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = c.parent_id AND p.since_seq <= c.seq
         ORDER BY p.since_seq DESC LIMIT 1) AS parent_path,
       c.node_id AS node_id,
       c.name AS name
FROM j_changes c
JOIN j_nodes n ON n.node_id = c.node_id;

CREATE VIEW handler_registrations AS
SELECT h.handler_id AS handler_id,
       n.session_id AS session_id,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = h.node_id AND p.since_seq <= h.handler_id
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       t.name AS event_type,
       rtrim(CASE WHEN h.phases & 1 THEN 'capture,' ELSE '' END
          || CASE WHEN h.phases & 2 THEN 'target,' ELSE '' END
          || CASE WHEN h.phases & 4 THEN 'bubble,' ELSE '' END
          || CASE WHEN h.phases & 8 THEN 'propagate,' ELSE '' END, ',') AS phases,
       h.label AS label,
       h.file || ':' || h.line AS location,
       h.handler_id AS added_seq,
       h.removed_seq AS removed_seq,
       CASE h.channel WHEN 0 THEN 'events' WHEN 1 THEN 'errors' END AS channel,
       h.node_id AS node_id
FROM j_handlers h
JOIN j_nodes n ON n.node_id = h.node_id
LEFT JOIN j_types t ON t.type_id = h.type_id;

CREATE VIEW sessions AS
SELECT s.session_id AS session_id,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.started_at, 'unixepoch') AS started_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.ended_at, 'unixepoch') AS ended_at,
       s.process AS process,
       s.events AS events,
       s.steps AS steps,
       s.dropped AS dropped,
       s.host AS host,
       s.app_version AS app_version
FROM j_sessions s;

CREATE VIEW journal_trouble AS
SELECT seq, session_id, strftime('%Y-%m-%dT%H:%M:%fZ', at, 'unixepoch') AS at, kind, message, records FROM j_trouble;

-- The hash chain: every record, in seq order, is chained as SHA-256(previous hash || its
-- canonical bytes). A checkpoint row is written with each transaction, covering the
-- records up to upto_seq that were not chained yet (all lower seqs being committed): how
-- many, the hash after the last, and a two-byte tag per record (the first bytes of the
-- hash after it), so that `eventtree verify` names the first record that differs.
CREATE TABLE j_chain (
    upto_seq INTEGER PRIMARY KEY,
    records  INTEGER NOT NULL,
    hash     BLOB NOT NULL,
    tags     BLOB NOT NULL
);

-- One row per dead letter (an event or request no handler acted on) or unhandled error
-- (an error no error handler caught), with delivery_history's columns: at the seq of the
-- report, at the origin's path when the event was raised.
CREATE VIEW unattended_history AS
SELECT x.unattended_seq AS seq,
       e.session_id AS session_id,
       e.event_id AS event_id,
       t.name AS event_type,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = e.origin_id AND p.since_seq <= e.event_id
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       NULL AS phase,
       NULL AS handler_label,
       NULL AS handler_location,
       CASE e.kind WHEN 2 THEN 'unhandledError' ELSE 'deadLetter' END AS outcome,
       NULL AS error,
       NULL AS duration_ns,
       NULL AS answer,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.started_at + e.raised_us / 1000000.0, 'unixepoch') AS at
FROM j_event_details x
JOIN j_events e ON e.event_id = x.event_id
JOIN j_sessions s ON s.session_id = e.session_id
JOIN j_types t ON t.type_id = e.type_id
WHERE x.unattended_seq IS NOT NULL;
