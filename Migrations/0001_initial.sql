-- EventTree journal, schema version 1.
--
-- Tables (prefixed j_) are the storage and may change between versions; the views at the
-- end are the public query contract and keep their columns. Every fact has a place in one
-- global sequence (seq); ids of sessions, nodes, handlers and events are the seq of the
-- fact that introduced them.

-- Which migrations made this schema, with the checksum of each file's text: an edited
-- migration is detected and refused.
CREATE TABLE j_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at REAL NOT NULL
);

CREATE TABLE j_sessions (
    session_id  INTEGER PRIMARY KEY,          -- seq of the session's start
    started_at  REAL NOT NULL,                -- seconds since 1970
    ended_seq   INTEGER,
    ended_at    REAL,
    process     TEXT NOT NULL,
    host        TEXT NOT NULL,
    app_version TEXT,
    events      INTEGER NOT NULL DEFAULT 0,   -- raises recorded
    steps       INTEGER NOT NULL DEFAULT 0,   -- handler calls and undelivered steps recorded
    dropped     INTEGER NOT NULL DEFAULT 0    -- records the journal had to drop
);

CREATE TABLE j_nodes (
    node_id    INTEGER PRIMARY KEY,           -- seq of its creation
    session_id INTEGER NOT NULL,
    name       TEXT NOT NULL                  -- its first name
);

-- The path of each node from a seq on: a row whenever the path changes (its own change or
-- an ancestor's). A released node keeps its last path.
CREATE TABLE j_node_paths (
    node_id   INTEGER NOT NULL,
    since_seq INTEGER NOT NULL,
    path      TEXT NOT NULL,
    PRIMARY KEY (node_id, since_seq)
) WITHOUT ROWID;

-- change: 0 created, 1 attached, 2 detached, 3 moved, 4 renamed, 5 released.
CREATE TABLE j_changes (
    seq       INTEGER PRIMARY KEY,
    node_id   INTEGER NOT NULL,
    change    INTEGER NOT NULL,
    parent_id INTEGER,                        -- attached/moved: the new parent; detached: the old one
    position  INTEGER,                        -- attached/moved: index among the parent's children
    name      TEXT                            -- created/renamed: the name
);

CREATE TABLE j_types (
    type_id INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE
);

-- handler_no is a small dense number so that a call row stays a handful of bytes.
-- channel: 0 events, 1 errors. phases: bit 0 capture, 1 target, 2 bubble, 3 propagate.
CREATE TABLE j_handlers (
    handler_no  INTEGER PRIMARY KEY,
    handler_id  INTEGER NOT NULL UNIQUE,      -- seq of its registration
    node_id     INTEGER NOT NULL,
    type_id     INTEGER,                      -- NULL: every type of its channel
    channel     INTEGER NOT NULL,
    phases      INTEGER NOT NULL,
    label       TEXT NOT NULL,
    file        TEXT NOT NULL,
    line        INTEGER NOT NULL,
    removed_seq INTEGER
);

-- Which typed handlers match which raised types (protocol-typed handlers match many).
CREATE TABLE j_matches (
    handler_no INTEGER NOT NULL,
    type_id    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    PRIMARY KEY (handler_no, type_id)
) WITHOUT ROWID;

-- kind: 0 event, 1 request, 2 error. mode: 0 bubble, 1 broadcast, 2 dispatch, 3 descend,
-- 4 descend:firstHandler, 5 descend:deepestLevel. result: 0 delivered, 1 consumed,
-- 2 answered, 3 unanswered, 4 unhandled, 5 failed. Kept narrow: what only some events have
-- lives in j_event_details.
CREATE TABLE j_events (
    event_id      INTEGER PRIMARY KEY,        -- seq of the raise
    session_id    INTEGER NOT NULL,
    type_id       INTEGER NOT NULL,
    kind          INTEGER NOT NULL,
    origin_id     INTEGER NOT NULL,
    mode          INTEGER NOT NULL,
    payload       TEXT,                       -- JSON; an error's description as a JSON string
    finished_back INTEGER,                    -- seq of the raise's end minus event_id; NULL: it never ended
    result        INTEGER
);

-- The facts only some events have: a cause, a transform link, who stopped them, the first
-- failure, a dead-letter or unhandled-error report, calls lost to released nodes, and the
-- stop-on-failure policy. A row exists only when one of them is set.
CREATE TABLE j_event_details (
    event_id         INTEGER PRIMARY KEY,
    cause_id         INTEGER,                 -- the event whose handler raised it
    transformed_from INTEGER,
    stop_handler_no  INTEGER,                 -- who consumed, answered or failed first
    stop_node_id     INTEGER,
    stop_phase       INTEGER,
    message          TEXT,                    -- the first failure's error
    unattended_seq   INTEGER,                 -- seq of its dead-letter or unhandled-error report
    lost_calls       INTEGER NOT NULL DEFAULT 0, -- handler calls its transform chain lost to released nodes
    on_failure       INTEGER NOT NULL DEFAULT 0  -- 0: a failing handler lets the event continue; 1: it stops it
);

-- One row per handler call, packed into a handful of bytes: code is
-- (seq - event_id) * 32 + phase * 8 + outcome, with phase 0 capture, 1 target, 2 bubble,
-- 3 propagate, and outcome 0 ignored, 1 handled, 2 consumed, 3 consumedImmediately,
-- 4 transformed, 5 answered, 6 failed.
CREATE TABLE j_calls (
    seq        INTEGER PRIMARY KEY,
    handler_no INTEGER NOT NULL,
    code       INTEGER NOT NULL,
    nanos      INTEGER NOT NULL
);

-- The error of a failed call or the answer of an answering call.
CREATE TABLE j_call_details (
    seq  INTEGER PRIMARY KEY,
    text TEXT NOT NULL
);

-- Steps that could not be delivered because their node had been released; lost_calls counts
-- the handler calls the route expected there.
CREATE TABLE j_undelivered (
    seq        INTEGER PRIMARY KEY,
    event_id   INTEGER NOT NULL,
    node_id    INTEGER NOT NULL,
    phase      INTEGER NOT NULL,
    lost_calls INTEGER NOT NULL
);

-- The journal's own trouble: write failures, records dropped by a full buffer.
CREATE TABLE j_trouble (
    seq        INTEGER PRIMARY KEY,
    session_id INTEGER,
    at         REAL NOT NULL,
    kind       TEXT NOT NULL,                 -- 'write-failed', 'dropped'
    message    TEXT NOT NULL,
    records    INTEGER NOT NULL               -- records affected
);

-- The next free seq, so that a reopened journal continues the sequence.
CREATE TABLE j_sequence (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    next_seq INTEGER NOT NULL
);
INSERT INTO j_sequence (id, next_seq) VALUES (1, 1);

CREATE INDEX j_undelivered_by_event ON j_undelivered (event_id);
CREATE INDEX j_handlers_by_node ON j_handlers (node_id);
CREATE INDEX j_changes_by_node ON j_changes (node_id, seq);

-- ---------------------------------------------------------------------------------------
-- Public views: the query contract.

-- One row per handler call, in seq order (the first half of delivery_history).
CREATE VIEW call_history AS
SELECT c.seq AS seq,
       e.session_id AS session_id,
       e.event_id AS event_id,
       t.name AS event_type,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = h.node_id AND p.since_seq <= c.seq
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       CASE (c.code >> 3) & 3 WHEN 0 THEN 'capture' WHEN 1 THEN 'target' WHEN 2 THEN 'bubble' ELSE 'propagate' END AS phase,
       h.label AS handler_label,
       h.file || ':' || h.line AS handler_location,
       CASE c.code & 7 WHEN 0 THEN 'ignored' WHEN 1 THEN 'handled' WHEN 2 THEN 'consumed'
         WHEN 3 THEN 'consumedImmediately' WHEN 4 THEN 'transformed' WHEN 5 THEN 'answered'
         ELSE 'failed' END AS outcome,
       CASE WHEN c.code & 7 = 6 THEN d.text END AS error,
       c.nanos AS duration_ns,
       CASE WHEN c.code & 7 = 5 THEN d.text END AS answer
FROM j_calls c
JOIN j_events e ON e.event_id = c.seq - (c.code >> 5)
JOIN j_types t ON t.type_id = e.type_id
JOIN j_handlers h ON h.handler_no = c.handler_no
LEFT JOIN j_call_details d ON d.seq = c.seq;

-- One row per step that could not be delivered (the second half of delivery_history).
CREATE VIEW undelivered_history AS
SELECT u.seq AS seq,
       e.session_id AS session_id,
       e.event_id AS event_id,
       t.name AS event_type,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = u.node_id AND p.since_seq <= u.seq
         ORDER BY p.since_seq DESC LIMIT 1) AS node_path,
       CASE u.phase WHEN 0 THEN 'capture' WHEN 1 THEN 'target' WHEN 2 THEN 'bubble' ELSE 'propagate' END AS phase,
       NULL AS handler_label, NULL AS handler_location, 'undelivered' AS outcome, NULL AS error,
       NULL AS duration_ns, NULL AS answer
FROM j_undelivered u
JOIN j_events e ON e.event_id = u.event_id
JOIN j_types t ON t.type_id = e.type_id;

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
         WHEN 4 THEN 'descend:firstHandler' ELSE 'descend:deepestLevel' END AS mode,
       (SELECT p.path FROM j_node_paths p WHERE p.node_id = e.origin_id AND p.since_seq <= e.event_id
         ORDER BY p.since_seq DESC LIMIT 1) AS origin_path,
       x.cause_id AS cause_event_id,
       x.transformed_from AS transformed_from_event_id,
       e.payload AS payload,
       CASE
         WHEN e.result IS NULL THEN 'lost'
         WHEN e.result IN (0, 3, 4) AND x.lost_calls > 0 THEN 'lost'
         ELSE CASE e.result WHEN 0 THEN 'delivered' WHEN 1 THEN 'consumed' WHEN 2 THEN 'answered'
           WHEN 3 THEN 'unanswered' WHEN 4 THEN 'unhandled' ELSE 'failed' END
       END AS result,
       CASE e.kind WHEN 0 THEN 'event' WHEN 1 THEN 'request' ELSE 'error' END AS kind
FROM j_events e
JOIN j_types t ON t.type_id = e.type_id
LEFT JOIN j_event_details x ON x.event_id = e.event_id;

CREATE VIEW tree_changes AS
SELECT c.seq AS seq,
       n.session_id AS session_id,
       CASE c.change WHEN 0 THEN 'created' WHEN 1 THEN 'attached' WHEN 2 THEN 'detached' WHEN 3 THEN 'moved'
         WHEN 4 THEN 'renamed' ELSE 'released' END AS change,
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
       CASE h.channel WHEN 0 THEN 'events' ELSE 'errors' END AS channel,
       h.node_id AS node_id
FROM j_handlers h
JOIN j_nodes n ON n.node_id = h.node_id
LEFT JOIN j_types t ON t.type_id = h.type_id;

CREATE VIEW sessions AS
SELECT s.session_id AS session_id,
       strftime('%Y-%m-%d %H:%M:%f', s.started_at, 'unixepoch') AS started_at,
       strftime('%Y-%m-%d %H:%M:%f', s.ended_at, 'unixepoch') AS ended_at,
       s.process AS process,
       s.events AS events,
       s.steps AS steps,
       s.dropped AS dropped,
       s.host AS host,
       s.app_version AS app_version
FROM j_sessions s;

CREATE VIEW journal_trouble AS
SELECT seq, session_id, strftime('%Y-%m-%d %H:%M:%f', at, 'unixepoch') AS at, kind, message, records FROM j_trouble;
