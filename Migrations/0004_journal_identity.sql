-- EventTree journal, schema version 4: the journal's identity.
--
-- journal_id is a random UUID (version 4), written once when the journal is created or
-- upgraded to this version, and never changed: rows that `eventtree ship` copies from many
-- journals into one PostgreSQL database are told apart by it. A copy of the file keeps it
-- (it is the same journal); it is an identity, not a record, so it is not hash-chained.
CREATE TABLE j_journal (
    journal_id TEXT NOT NULL
);

INSERT INTO j_journal (journal_id)
SELECT lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-'
             || substr('89AB', 1 + (unicode(substr(h, 17, 1)) % 4), 1) || substr(h, 18, 3) || '-'
             || substr(h, 21, 12))
FROM (SELECT hex(randomblob(16)) AS h);

-- The journal's identity, as a view (views keep their columns).
CREATE VIEW journal_identity AS
SELECT journal_id FROM j_journal;
