-- EventTree journal schema, version 1.
--
-- The journal records what an event bus did: its sessions, the tree of nodes, the handlers
-- registered on them, every raise and every handler call, and a hash chain over all of it.
--
-- Tables (prefixed j_) are the storage and may change between versions; the views at the
-- end are the public query contract and keep their columns. Every fact has a place in one
-- global sequence (seq); ids of sessions, nodes, handlers and events are the seq of the
-- fact that introduced them.

-- ---------------------------------------------------------------------------------------
-- Migrations.

-- Which migrations made this schema, with the checksum of each file's text: an edited
-- migration is detected and refused.
CREATE TABLE j_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at REAL NOT NULL
);

-- ---------------------------------------------------------------------------------------
-- Identity.

-- journal_id is a random UUID (version 4), written once when the journal is created and
-- never changed: rows that `eventtree ship` copies from many journals into one PostgreSQL
-- database are told apart by it. A copy of the file keeps it (it is the same journal); it
-- is an identity, not a record, so it is not hash-chained.
CREATE TABLE j_journal (
    journal_id TEXT NOT NULL
);

INSERT INTO j_journal (journal_id)
SELECT lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-'
             || substr('89AB', 1 + (unicode(substr(h, 17, 1)) % 4), 1) || substr(h, 18, 3) || '-'
             || substr(h, 21, 12))
FROM (SELECT hex(randomblob(16)) AS h);

-- ---------------------------------------------------------------------------------------
-- Sequence.

-- The next free seq, so that a reopened journal continues the sequence.
-- settled_seq: every record numbered below it is committed. Threads hand their records
-- over out of seq order, so a transaction may commit a lower seq after a higher one was
-- committed; a reader that follows the journal prints rows only below settled_seq and so
-- never skips one that commits late.
CREATE TABLE j_sequence (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    next_seq    INTEGER NOT NULL,
    settled_seq INTEGER NOT NULL DEFAULT 0
);
INSERT INTO j_sequence (id, next_seq) VALUES (1, 1);

-- ---------------------------------------------------------------------------------------
-- Sessions.

-- One row per run of a bus. The session's start on the bus's monotonic clock is kept by
-- the writer only: raises and calls store their times as offsets from it (raised_us,
-- offset_us), which the views add to started_at.
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

-- Where raises were made. A raise's thread is a small number, dense per process from 1 in
-- the order threads first raise; j_threads names it per session (the main thread is `main`;
-- others carry their system name, or `thread N`). Two numbers are no thread: -1, named
-- `main actor`, is a synchronous raise on the main actor, and 0, named `awaited`, a raise
-- made with await (raiseAsync, requestAsync), whatever threads ran them.
CREATE TABLE j_threads (
    session_id INTEGER NOT NULL,
    thread_no  INTEGER NOT NULL,
    name       TEXT NOT NULL,
    PRIMARY KEY (session_id, thread_no)
) WITHOUT ROWID;

-- ---------------------------------------------------------------------------------------
-- Tree.

CREATE TABLE j_nodes (
    node_id    INTEGER PRIMARY KEY,           -- seq of its creation
    session_id INTEGER NOT NULL,
    name       TEXT NOT NULL                  -- its first name
);

-- change: 0 created, 1 attached, 2 detached, 3 moved, 4 renamed, 5 released.
CREATE TABLE j_changes (
    seq       INTEGER PRIMARY KEY,
    node_id   INTEGER NOT NULL,
    change    INTEGER NOT NULL,
    parent_id INTEGER,                        -- attached/moved: the new parent; detached: the old one
    position  INTEGER,                        -- attached/moved: index among the parent's children
    name      TEXT                            -- created/renamed: the name
);
CREATE INDEX j_changes_by_node ON j_changes (node_id, seq);

-- The tree of a session as it stood after the change at `seq`, written every 1,024 changes of
-- the session (or as many changes as the tree has nodes, when more), so that the tree at any
-- seq is rebuilt from the nearest snapshot before it. nodes: a JSON array of
-- [node_id, parent_id or null, name], roots in creation order, each node before its children,
-- children in order.
CREATE TABLE j_tree_snapshots (
    seq        INTEGER PRIMARY KEY,           -- the change (a j_changes row)
    session_id INTEGER NOT NULL,
    nodes      TEXT NOT NULL
);
CREATE INDEX j_tree_snapshots_by_session ON j_tree_snapshots (session_id, seq);

-- Who released a node during a handler call: the release's seq, the event being handled
-- and the handler.
CREATE TABLE j_releases (
    seq        INTEGER PRIMARY KEY,           -- the release (a j_changes row)
    event_id   INTEGER NOT NULL,
    handler_no INTEGER NOT NULL
);

-- ---------------------------------------------------------------------------------------
-- Types and handlers.

CREATE TABLE j_types (
    type_id INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE
);

-- handler_no is a small dense number so that a call stays a handful of bytes.
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
CREATE INDEX j_handlers_by_node ON j_handlers (node_id);

-- Which typed handlers match which raised types (protocol-typed handlers match many).
CREATE TABLE j_matches (
    handler_no INTEGER NOT NULL,
    type_id    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    PRIMARY KEY (handler_no, type_id)
) WITHOUT ROWID;

-- ---------------------------------------------------------------------------------------
-- Events and calls.

-- kind: 0 event, 1 request, 2 error. mode: 0 bubble, 1 broadcast, 2 dispatch, 3 descend,
-- 4 descend:firstHandler, 5 descend:deepestLevel. result: 0 delivered, 1 consumed,
-- 2 answered, 3 unanswered, 4 unhandled, 5 failed. Kept narrow: what only some events have
-- lives in j_event_details.
--
-- calls is the event's run of calls (the form is described at j_call_runs), its first
-- call's seq being event_id + 1 (a call's seq is event_id + 1 + its index + skipped), when
-- the writer has the calls with the raise's end and the raise ends within 1,024 seqs of it
-- (finished_back at most 1,024: its calls lie in the 1,023 seqs after it, so that a reader
-- finds the runs of a stretch of seqs from the event rows just before it). Most raises are
-- so: one row per raise instead of an event row, a run row and an index entry. Any other
-- run is a j_call_runs row; an event's calls are those of its row and of its runs.
CREATE TABLE j_events (
    event_id      INTEGER PRIMARY KEY,        -- seq of the raise
    session_id    INTEGER NOT NULL,
    type_id       INTEGER NOT NULL,
    kind          INTEGER NOT NULL,
    origin_id     INTEGER NOT NULL,
    mode          INTEGER NOT NULL,
    payload       TEXT,                       -- JSON; an error's description as a JSON string
    finished_back INTEGER,                    -- seq of the raise's end minus event_id; NULL: it never ended
    result        INTEGER,
    raised_us     INTEGER,                    -- microseconds from the session's start; NULL: unknown
    thread_no     INTEGER,                    -- where it was raised (j_threads); NULL: unknown
    calls         TEXT                        -- its run of calls; NULL: none kept here
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
-- What an event caused, and what was transformed from it (explain walks causes both ways,
-- in time independent of the journal's length).
CREATE INDEX j_event_details_by_cause ON j_event_details (cause_id);
CREATE INDEX j_event_details_by_transform ON j_event_details (transformed_from) WHERE transformed_from IS NOT NULL;
-- Dead letters and unhandled errors by their seq: readers that page through the delivery
-- history a window of seqs at a time find them without scanning every event's details.
CREATE INDEX j_event_details_by_unattended ON j_event_details (unattended_seq) WHERE unattended_seq IS NOT NULL;

-- Handler calls are packed, one row per run of calls that is not kept in its event's row
-- (j_events.calls). A run is the calls of one event handed to the writer together (a
-- raise's calls make one run; a raise's calls handed over in two batches, two). Its calls
-- need not be adjacent seqs: a raise inside a handler numbers its own records between its
-- cause's calls, and runs of raises on two threads may interleave. Inserting one row for
-- ten calls rather than ten rows is what lets the writer keep up with the bus.
--
-- calls is a JSON array with one array per call, in seq order:
--   [handler_no * 64 + phase * 16 + outcome, nanos, offset_us, skipped]
-- where a call's seq is the run's seq plus the call's index in the run plus skipped (the
-- seqs before it, since the run's first, that are not calls of the run: a nested raise's
-- records, another thread's), and its code (see j_calls) follows from it. phase and
-- outcome are as in j_calls; nanos is the call's duration, offset_us microseconds from
-- its event's raise (null: unknown). Trailing elements that say nothing are left out:
-- skipped when 0, then offset_us when 0, so that a call of a raise on one thread reads
-- [81,1250]. The row's seq is its first call's, last_seq its last call's.
CREATE TABLE j_call_runs (
    seq      INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    calls    TEXT NOT NULL
);
-- An event's calls are found by its id (call_history joins on it): the calls of one event,
-- or of the events raised after some seq, are read without unpacking every run.
CREATE INDEX j_call_runs_by_event ON j_call_runs (event_id);
-- The longest run, and the runs that end last: where the delivery history lies (its
-- extent) is read from these two in time independent of the journal's length.
CREATE INDEX j_call_runs_by_length ON j_call_runs (last_seq - seq);
CREATE INDEX j_call_runs_by_end ON j_call_runs (last_seq);

-- The error of a failed call or the answer of an answering call, by the call's seq.
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
CREATE INDEX j_undelivered_by_event ON j_undelivered (event_id);

-- The handlers whose calls an undelivered step lost (one row each).
CREATE TABLE j_lost_calls (
    seq        INTEGER NOT NULL,              -- the undelivered step
    handler_no INTEGER NOT NULL,
    PRIMARY KEY (seq, handler_no)
) WITHOUT ROWID;

-- ---------------------------------------------------------------------------------------
-- Chain.

-- The hash chain. A checkpoint row is written with each transaction, covering the records
-- up to upto_seq that were not chained yet (all lower seqs being committed): how many, the
-- hash after the last, and a two-byte tag per record, so that `eventtree verify` names the
-- first record changed, inserted or moved; the hash after a checkpoint is what heads and
-- signatures cover.
--
-- rule says how the checkpoint chains its records; version 1 has one rule, 1 (the column
-- lets a later version chain differently): the checkpoint's hash is SHA-256(previous
-- checkpoint's hash || for each record, its length as a varint then its bytes), the
-- records in their canonical form (no presence byte before an integer that cannot be
-- missing); a record's tag is the low two bytes of a running 64-bit state over the
-- records' digests (a hash over eight bytes of the record at a time), seeded with the
-- previous hash's first eight bytes (little-endian) xor the FNV offset basis (see
-- CheckpointHasher).
CREATE TABLE j_chain (
    upto_seq INTEGER PRIMARY KEY,
    records  INTEGER NOT NULL,
    hash     BLOB NOT NULL,
    tags     BLOB NOT NULL,
    rule     INTEGER NOT NULL DEFAULT 1
);

-- What retention removed: one row per prune (`eventtree prune`, the writer's retention
-- limits, `eventtree extract`), itself a chained record at seq. A prune removes whole
-- sessions from the start of the journal up to a checkpoint (through_seq); the row keeps
-- the chain's hash after that checkpoint, which the first retained checkpoint chains
-- from, so that `verify` proves what is left from this anchor. sessions and records count
-- everything pruned since the journal began (a later prune adds the counts of the rows it
-- removes); reason is 'size', 'age', 'sessions' or 'extract'.
CREATE TABLE j_prunes (
    seq          INTEGER PRIMARY KEY,
    pruned_at    REAL NOT NULL,               -- seconds since 1970
    through_seq  INTEGER NOT NULL,            -- the last pruned seq (a checkpoint's upto_seq)
    hash         BLOB NOT NULL,               -- the chain's hash after it
    sessions     INTEGER NOT NULL,
    records      INTEGER NOT NULL,
    reason       TEXT NOT NULL
);

-- ---------------------------------------------------------------------------------------
-- Trouble.

-- The journal's own trouble: write failures, records dropped by a full buffer, batches the
-- database refused.
CREATE TABLE j_trouble (
    seq        INTEGER PRIMARY KEY,
    session_id INTEGER,
    at         REAL NOT NULL,
    kind       TEXT NOT NULL,                 -- 'write-failed', 'dropped', 'refused'
    message    TEXT NOT NULL,
    records    INTEGER NOT NULL               -- records affected
);

-- ---------------------------------------------------------------------------------------
-- Calls, unpacked.

-- j_calls: one row per handler call, unpacked from both places runs are kept. code is
-- (seq - event_id) * 64 + phase * 16 + outcome, with phase 0 capture, 1 target, 2 bubble,
-- 3 propagate, and outcome 0 ignored, 1 handled, 2 consumed, 3 consumedImmediately,
-- 4 transformed, 5 answered, 6 failed, 7 transformedError, 8 enqueued.
-- A run is read with its seq (the key a condition on it can use: the event's for a run in
-- its event's row), the seq its calls count from, its event and the seq it ends at most
-- (an event row's: its event's end). A run whose text is not JSON shows no calls here;
-- verify and replay name it.
CREATE VIEW j_calls AS
SELECT r.first_seq + c.key + coalesce(json_extract(c.value, '$[3]'), 0) AS seq,
       json_extract(c.value, '$[0]') >> 6 AS handler_no,
       (r.first_seq + c.key + coalesce(json_extract(c.value, '$[3]'), 0) - r.event_id) * 64
         + (json_extract(c.value, '$[0]') & 63) AS code,
       json_extract(c.value, '$[1]') AS nanos,
       CASE WHEN json_type(c.value, '$[2]') IS NULL THEN 0 ELSE json_extract(c.value, '$[2]') END AS offset_us,
       r.event_id AS event_id
FROM (SELECT seq, seq AS first_seq, event_id, last_seq, calls FROM j_call_runs
      UNION ALL
      SELECT event_id, event_id + 1, event_id, event_id + finished_back, calls FROM j_events WHERE calls IS NOT NULL) r,
     json_each(CASE WHEN json_valid(r.calls) THEN r.calls ELSE '[]' END) c;

-- ---------------------------------------------------------------------------------------
-- Public views: the query contract.
--
-- Every code is spelled out: a code the schema does not know reads as NULL, never as a
-- plausible word. Times are ISO-8601 UTC with a Z.

-- One row per handler call (the first half of delivery_history); no order is promised.
-- Its event_id is read from the call's side of the join (the same value as the event's), so
-- that a condition on it reaches both places' keys: through the event's row, SQLite would
-- unpack every run of the journal first.
CREATE VIEW call_history AS
SELECT c.seq AS seq,
       e.session_id AS session_id,
       c.event_id AS event_id,
       t.name AS event_type,
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT h.node_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = h.node_id AND r.change = 5 AND r.seq <= c.seq), c.seq),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS node_path,
       CASE (c.code >> 4) & 3 WHEN 0 THEN 'capture' WHEN 1 THEN 'target' WHEN 2 THEN 'bubble' WHEN 3 THEN 'propagate' END AS phase,
       h.label AS handler_label,
       h.file || ':' || h.line AS handler_location,
       CASE c.code & 15 WHEN 0 THEN 'ignored' WHEN 1 THEN 'handled' WHEN 2 THEN 'consumed'
         WHEN 3 THEN 'consumedImmediately' WHEN 4 THEN 'transformed' WHEN 5 THEN 'answered'
         WHEN 6 THEN 'failed' WHEN 7 THEN 'transformedError' WHEN 8 THEN 'enqueued' END AS outcome,
       CASE WHEN c.code & 15 = 6 THEN d.text END AS error,
       c.nanos AS duration_ns,
       CASE WHEN c.code & 15 = 5 THEN d.text END AS answer,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.started_at + (e.raised_us + c.offset_us) / 1000000.0, 'unixepoch') AS at
FROM j_calls c
JOIN j_events e ON e.event_id = c.event_id
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
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT u.node_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = u.node_id AND r.change = 5 AND r.seq <= e.event_id), e.event_id),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS node_path,
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

-- One row per dead letter (an event or request no handler acted on) or unhandled error
-- (an error no error handler caught), with delivery_history's columns: at the seq of the
-- report, at the origin's path when the event was raised.
CREATE VIEW unattended_history AS
SELECT x.unattended_seq AS seq,
       e.session_id AS session_id,
       e.event_id AS event_id,
       t.name AS event_type,
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT e.origin_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = e.origin_id AND r.change = 5 AND r.seq <= e.event_id), e.event_id),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS node_path,
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

-- One row per raise (events, requests, errors), with its result and thread.
CREATE VIEW event_history AS
SELECT e.event_id AS event_id,
       e.event_id AS seq,
       e.session_id AS session_id,
       t.name AS event_type,
       CASE e.mode WHEN 0 THEN 'bubble' WHEN 1 THEN 'broadcast' WHEN 2 THEN 'dispatch' WHEN 3 THEN 'descend'
         WHEN 4 THEN 'descend:firstHandler' WHEN 5 THEN 'descend:deepestLevel' END AS mode,
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT e.origin_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = e.origin_id AND r.change = 5 AND r.seq <= e.event_id), e.event_id),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS origin_path,
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

-- One row per change of the tree, with the node's and the parent's path at that seq.
CREATE VIEW tree_changes AS
SELECT c.seq AS seq,
       n.session_id AS session_id,
       CASE c.change WHEN 0 THEN 'created' WHEN 1 THEN 'attached' WHEN 2 THEN 'detached' WHEN 3 THEN 'moved'
         WHEN 4 THEN 'renamed' WHEN 5 THEN 'released' END AS change,
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT c.node_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = c.node_id AND r.change = 5 AND r.seq <= c.seq), c.seq),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS node_path,
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT c.parent_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = c.parent_id AND r.change = 5 AND r.seq <= c.seq), c.seq),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS parent_path,
       c.node_id AS node_id,
       c.name AS name
FROM j_changes c
JOIN j_nodes n ON n.node_id = c.node_id;

-- One row per handler registration, at its node's path when it was registered.
CREATE VIEW handler_registrations AS
SELECT h.handler_id AS handler_id,
       n.session_id AS session_id,
       (WITH RECURSIVE up(node_id, at, depth, path) AS (
          SELECT h.node_id, coalesce((SELECT r.seq FROM j_changes r WHERE r.node_id = h.node_id AND r.change = 5 AND r.seq <= h.handler_id), h.handler_id),
                 0, NULL
          UNION ALL
          SELECT (SELECT CASE WHEN k.change IN (1, 3) THEN k.parent_id END FROM j_changes k
                   WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change <= 3 ORDER BY k.seq DESC LIMIT 1),
                 up.at, up.depth + 1,
                 (SELECT k.name FROM j_changes k WHERE k.node_id = up.node_id AND k.seq <= up.at AND k.change IN (0, 4)
                   ORDER BY k.seq DESC LIMIT 1) || coalesce('/' || up.path, '')
            FROM up WHERE up.node_id IS NOT NULL AND up.depth <= (SELECT count(*) FROM j_nodes))
        SELECT path FROM up WHERE node_id IS NULL) AS node_path,
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

-- What retention pruned, newest first: the seqs it removed and how many sessions and
-- records (counted since the journal began).
CREATE VIEW journal_prunes AS
SELECT seq, strftime('%Y-%m-%dT%H:%M:%fZ', pruned_at, 'unixepoch') AS pruned_at, through_seq, sessions, records, reason
FROM j_prunes;

-- The journal's identity, as a view (views keep their columns).
CREATE VIEW journal_identity AS
SELECT journal_id FROM j_journal;
