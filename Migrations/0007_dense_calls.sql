-- EventTree journal, schema version 7: a run's calls are written densely.
--
-- A call of a run was [handler_no, code, nanos, offset_us]. It is now
--   [handler_no * 32 + phase * 8 + outcome, nanos, offset_us, skipped]
-- where a call's seq is the run's seq plus the call's index in the run plus skipped (the
-- seqs before it, since the run's first, that are not calls of the run: a nested raise's
-- records, another thread's), and its code is (seq - event_id) * 32 + phase * 8 + outcome,
-- as before. Trailing elements that say nothing are left out: skipped when 0, then
-- offset_us when 0 (null stays null). A call of a raise on one thread reads [41,1250]:
-- about four bytes fewer than before, most of a step's bytes.
--
-- Checkpoints written from this version on chain by rule 3 (j_chain.rule): the same SHA-256
-- over records in a denser form (no presence byte before an integer that cannot be missing),
-- each record's tag from a digest of it (a hash over eight bytes at a time) rather than
-- FNV-1a over each byte. Checkpoints already written keep their rule and their records' form.
-- Only runs that version 6 could read are rewritten (a JSON array of calls, each four
-- integers, the last possibly null, a handler number that fits); any other JSON is marked
-- so that it reads as damaged, as it did, rather than as a run of version 7.
UPDATE j_call_runs SET calls = CASE
    WHEN NOT json_valid(calls) THEN calls
    WHEN json_type(calls) = 'array' AND json_array_length(calls) > 0 AND NOT EXISTS (
        SELECT 1 FROM json_each(j_call_runs.calls) c
        WHERE c.type != 'array' OR json_array_length(c.value) != 4
            OR json_type(c.value, '$[0]') != 'integer' OR json_extract(c.value, '$[0]') NOT BETWEEN 0 AND 288230376151711743
            OR json_type(c.value, '$[1]') != 'integer' OR json_extract(c.value, '$[1]') < 0
            OR json_type(c.value, '$[2]') != 'integer' OR json_type(c.value, '$[3]') NOT IN ('integer', 'null'))
    THEN (
        SELECT json_group_array(CASE
            WHEN skipped != 0 THEN json_array(hc, nanos, offset_us, skipped)
            WHEN offset_us IS NULL THEN json_array(hc, nanos, NULL)
            WHEN offset_us != 0 THEN json_array(hc, nanos, offset_us)
            ELSE json_array(hc, nanos) END)
        FROM (SELECT json_extract(c.value, '$[0]') * 32 + (json_extract(c.value, '$[1]') & 31) AS hc,
                     json_extract(c.value, '$[2]') AS nanos,
                     json_extract(c.value, '$[3]') AS offset_us,
                     j_call_runs.event_id + (json_extract(c.value, '$[1]') >> 5) - j_call_runs.seq - c.key AS skipped
              FROM json_each(j_call_runs.calls) c ORDER BY c.key))
    ELSE '!' || calls
    END;

-- j_calls keeps its columns, unpacked from the new form. A run whose text is not JSON shows
-- no calls here; verify and replay name it.
DROP VIEW j_calls;
CREATE VIEW j_calls AS
SELECT r.seq + c.key + coalesce(json_extract(c.value, '$[3]'), 0) AS seq,
       json_extract(c.value, '$[0]') >> 5 AS handler_no,
       (r.seq + c.key + coalesce(json_extract(c.value, '$[3]'), 0) - r.event_id) * 32
         + (json_extract(c.value, '$[0]') & 31) AS code,
       json_extract(c.value, '$[1]') AS nanos,
       CASE WHEN json_type(c.value, '$[2]') IS NULL THEN 0 ELSE json_extract(c.value, '$[2]') END AS offset_us,
       r.event_id AS event_id
FROM j_call_runs r, json_each(CASE WHEN json_valid(r.calls) THEN r.calls ELSE '[]' END) c;
