-- EventTree journal, schema version 8: an event's calls are kept in its own row.
--
-- Most raises hand the writer their record, their calls and their end together: the calls
-- made one j_call_runs row next to the j_events row, a second row and an index entry per
-- raise, most of what the writer spent on a raise's rows. Such a run is now the event row's
-- calls column, in the form of a run (see version 7), its first call's seq being event_id + 1
-- (a call's seq is event_id + 1 + its index + skipped), when the raise ends within 1,024 seqs
-- of it (finished_back at most 1,024: its calls lie in the 1,023 seqs after it, so that a
-- reader finds the runs of a stretch of seqs from the event rows just before it). j_call_runs
-- keeps the other runs (calls handed to the writer in several batches, a tree change recorded
-- before the first call, a raise that ends further away): an event's calls are those of its
-- row and of its runs.
-- Rows written before this version keep their runs where they are.
ALTER TABLE j_events ADD COLUMN calls TEXT;

-- j_calls keeps its columns, unpacked from both places. A run is read with its seq (the key
-- a condition on it can use: the event's for a run in its event's row), the seq its calls
-- count from, its event and the seq it ends at most (an event row's: its event's end).
DROP VIEW j_calls;
CREATE VIEW j_calls AS
SELECT r.first_seq + c.key + coalesce(json_extract(c.value, '$[3]'), 0) AS seq,
       json_extract(c.value, '$[0]') >> 5 AS handler_no,
       (r.first_seq + c.key + coalesce(json_extract(c.value, '$[3]'), 0) - r.event_id) * 32
         + (json_extract(c.value, '$[0]') & 31) AS code,
       json_extract(c.value, '$[1]') AS nanos,
       CASE WHEN json_type(c.value, '$[2]') IS NULL THEN 0 ELSE json_extract(c.value, '$[2]') END AS offset_us,
       r.event_id AS event_id
FROM (SELECT seq, seq AS first_seq, event_id, last_seq, calls FROM j_call_runs
      UNION ALL
      SELECT event_id, event_id + 1, event_id, event_id + finished_back, calls FROM j_events WHERE calls IS NOT NULL) r,
     json_each(CASE WHEN json_valid(r.calls) THEN r.calls ELSE '[]' END) c;

-- call_history names its event by the call's event_id (the same value as before, read from the
-- call's side of the join), so that a condition on it reaches both places' keys: through the
-- event's row, SQLite would unpack every run of the journal first.
DROP VIEW delivery_history;
DROP VIEW call_history;
CREATE VIEW call_history AS
SELECT c.seq AS seq,
       e.session_id AS session_id,
       c.event_id AS event_id,
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
