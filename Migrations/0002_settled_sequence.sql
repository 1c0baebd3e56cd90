-- EventTree journal, schema version 2.
--
-- settled_seq: every record numbered below it is committed. Threads hand their records
-- over out of seq order, so a transaction may commit a lower seq after a higher one was
-- committed; a reader that follows the journal prints rows only below settled_seq and so
-- never skips one that commits late.
ALTER TABLE j_sequence ADD COLUMN settled_seq INTEGER NOT NULL DEFAULT 0;
