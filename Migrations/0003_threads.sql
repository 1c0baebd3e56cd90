-- EventTree journal, schema version 3: the thread each raise ran on.
--
-- A raise's thread is a small number, dense per process in the order threads first raise;
-- j_threads names it per session (the main thread is `main`; others carry their system
-- name, or `thread N`). Rows written by versions 1 and 2 have no thread (NULL).
ALTER TABLE j_events ADD COLUMN thread_no INTEGER;

CREATE TABLE j_threads (
    session_id INTEGER NOT NULL,
    thread_no  INTEGER NOT NULL,
    name       TEXT NOT NULL,
    PRIMARY KEY (session_id, thread_no)
) WITHOUT ROWID;

DROP VIEW event_history;

-- One row per raise (events, requests, errors), with its result and thread.
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
       strftime('%Y-%m-%dT%H:%M:%fZ', s.started_at + e.raised_us / 1000000.0, 'unixepoch') AS raised_at,
       (SELECT th.name FROM j_threads th WHERE th.session_id = e.session_id AND th.thread_no = e.thread_no) AS thread
FROM j_events e
JOIN j_sessions s ON s.session_id = e.session_id
JOIN j_types t ON t.type_id = e.type_id
LEFT JOIN j_event_details x ON x.event_id = e.event_id;
