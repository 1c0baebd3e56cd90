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
