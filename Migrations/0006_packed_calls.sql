-- EventTree journal, schema version 6: handler calls are packed, one row per run of calls.
--
-- A run is the calls of one event handed to the writer together (a raise's calls make one
-- run; a raise's calls handed over in two batches, two). Its calls need not be adjacent
-- seqs: a raise inside a handler numbers its own records between its cause's calls, and
-- runs of raises on two threads may interleave. Inserting one row for ten calls rather than
-- ten rows is what lets the writer keep up with the bus.
--
-- calls is a JSON array with one array per call, in seq order:
--   [handler_no, code, nanos, offset_us]
-- with the meanings of the columns of j_calls below; a call's seq is
-- event_id + (code >> 5). The row's seq is its first call's, last_seq its last call's.
CREATE TABLE j_call_runs (
    seq      INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    calls    TEXT NOT NULL
);
-- An event's calls are found by its id (call_history joins on it): the calls of one event,
-- or of the events raised after some seq, are read without unpacking every run.
CREATE INDEX j_call_runs_by_event ON j_call_runs (event_id);
-- Dead letters and unhandled errors by their seq: readers that page through the delivery
-- history a window of seqs at a time find them without scanning every event's details.
CREATE INDEX j_event_details_by_unattended ON j_event_details (unattended_seq) WHERE unattended_seq IS NOT NULL;

-- Every call row becomes a run of one call.
INSERT INTO j_call_runs (seq, event_id, last_seq, calls)
SELECT seq, seq - (code >> 5), seq, json_array(json_array(handler_no, code, nanos, offset_us))
FROM j_calls ORDER BY seq;

DROP VIEW delivery_history;
DROP VIEW call_history;
DROP TABLE j_calls;

-- j_calls stays, as a view with the columns the table had (and its event's id): one row per
-- handler call.
-- code is (seq - event_id) * 32 + phase * 8 + outcome (see version 1). A run whose text is
-- not JSON shows no calls here (as an unknown code reads as NULL); verify and replay name it.
CREATE VIEW j_calls AS
SELECT r.event_id + (json_extract(c.value, '$[1]') >> 5) AS seq,
       json_extract(c.value, '$[0]') AS handler_no,
       json_extract(c.value, '$[1]') AS code,
       json_extract(c.value, '$[2]') AS nanos,
       json_extract(c.value, '$[3]') AS offset_us,
       r.event_id AS event_id
FROM j_call_runs r, json_each(CASE WHEN json_valid(r.calls) THEN r.calls ELSE '[]' END) c;

-- The views over calls, as in version 2 (they are made again over the new j_calls).
-- One row per handler call (the first half of delivery_history); no order is promised.
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
JOIN j_events e ON e.event_id = c.event_id
JOIN j_sessions s ON s.session_id = e.session_id
JOIN j_types t ON t.type_id = e.type_id
JOIN j_handlers h ON h.handler_no = c.handler_no
LEFT JOIN j_call_details d ON d.seq = c.seq;


-- One row per handler call or undelivered step.
CREATE VIEW delivery_history AS
SELECT * FROM call_history
UNION ALL
SELECT * FROM undelivered_history;
