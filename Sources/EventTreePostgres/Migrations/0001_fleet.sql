-- EventTree fleet database, schema version 1: the views of every shipped journal, one table
-- per view with the view's columns after journal_id, so that a query written for one
-- journal runs fleet-wide (add `journal_id` to tell journals apart). Times are timestamptz.
-- And the journals' own rows (journal_rows), so that a shipped journal can be read back as
-- the file is (eventtree replay|explain|query|sessions|topology|verify|tail --from …).
CREATE TABLE eventtree_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);

-- One row per shipped journal: how far it is shipped.
CREATE TABLE journals (
    journal_id       uuid PRIMARY KEY,
    shipped_seq      bigint NOT NULL DEFAULT 0,  -- every row up to this seq is shipped
    events_final_seq bigint NOT NULL DEFAULT 0,  -- event_history rows up to it are final; later ones are shipped again
    source           text NOT NULL,              -- host and path it was last shipped from
    schema_version   integer,                    -- the journal schema version of its journal_rows; NULL until the first are shipped
    first_shipped_at timestamptz NOT NULL DEFAULT now(),
    last_shipped_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE delivery_history (
    journal_id       uuid NOT NULL REFERENCES journals,
    seq              bigint NOT NULL,
    session_id       bigint,
    event_id         bigint,
    event_type       text,
    node_path        text,
    phase            text,
    handler_label    text,
    handler_location text,
    outcome          text,
    error            text,
    duration_ns      bigint,
    answer           text,
    at               timestamptz
);
CREATE INDEX delivery_history_by_seq ON delivery_history (journal_id, seq);
CREATE INDEX delivery_history_by_type ON delivery_history (event_type, outcome);

CREATE TABLE event_history (
    journal_id                uuid NOT NULL REFERENCES journals,
    event_id                  bigint NOT NULL,
    seq                       bigint NOT NULL,
    session_id                bigint,
    event_type                text,
    mode                      text,
    origin_path               text,
    cause_event_id            bigint,
    transformed_from_event_id bigint,
    payload                   text,
    result                    text,
    kind                      text,
    raised_at                 timestamptz,
    thread                    text,
    PRIMARY KEY (journal_id, event_id)
);
CREATE INDEX event_history_by_type ON event_history (event_type, result);

CREATE TABLE tree_changes (
    journal_id  uuid NOT NULL REFERENCES journals,
    seq         bigint NOT NULL,
    session_id  bigint,
    change      text,
    node_path   text,
    parent_path text,
    node_id     bigint,
    name        text,
    PRIMARY KEY (journal_id, seq)
);

CREATE TABLE handler_registrations (
    journal_id  uuid NOT NULL REFERENCES journals,
    handler_id  bigint NOT NULL,
    session_id  bigint,
    node_path   text,
    event_type  text,
    phases      text,
    label       text,
    location    text,
    added_seq   bigint,
    removed_seq bigint,
    channel     text,
    node_id     bigint,
    PRIMARY KEY (journal_id, handler_id)
);

CREATE TABLE sessions (
    journal_id  uuid NOT NULL REFERENCES journals,
    session_id  bigint NOT NULL,
    started_at  timestamptz,
    ended_at    timestamptz,
    process     text,
    events      bigint,
    steps       bigint,
    dropped     bigint,
    host        text,
    app_version text,
    PRIMARY KEY (journal_id, session_id)
);

CREATE TABLE journal_trouble (
    journal_id uuid NOT NULL REFERENCES journals,
    seq        bigint NOT NULL,
    session_id bigint,
    at         timestamptz,
    kind       text,
    message    text,
    records    bigint,
    PRIMARY KEY (journal_id, seq)
);

-- Each row of the journal's tables (j_events, j_calls, …) as an image the journal format
-- encodes and decodes (EventTreeJournal: every value exactly as SQLite stored it); query the
-- view tables above for answers, not these.
CREATE TABLE journal_rows (
    journal_id uuid NOT NULL REFERENCES journals,
    table_name text NOT NULL,
    seq        bigint,            -- its seq (its event's, in j_events and j_event_details); NULL in tables shipped whole
    image      bytea NOT NULL
);
CREATE INDEX journal_rows_by_seq ON journal_rows (journal_id, table_name, seq);
