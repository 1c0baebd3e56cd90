-- EventTree fleet database, schema version 2: the journals' own rows, so that a shipped
-- journal can be read back as the file is (eventtree replay|explain|query|sessions|topology|
-- verify|tail --from postgresql://… --journal ID).
--
-- journal_rows holds each row of the journal's tables (j_events, j_calls, …) as an image the
-- journal format encodes and decodes (EventTreeJournal: every value exactly as SQLite stored
-- it); query the view tables for answers, not these.

-- The journal schema version of a journal's rows; NULL: its rows were not shipped (it was
-- shipped by an eventtree of fleet schema 1), and the next ship sends them all.
ALTER TABLE journals ADD COLUMN schema_version integer;

CREATE TABLE journal_rows (
    journal_id uuid NOT NULL REFERENCES journals,
    table_name text NOT NULL,
    seq        bigint,            -- its seq (its event's, in j_events and j_event_details); NULL in tables shipped whole
    image      bytea NOT NULL
);
CREATE INDEX journal_rows_by_seq ON journal_rows (journal_id, table_name, seq);
