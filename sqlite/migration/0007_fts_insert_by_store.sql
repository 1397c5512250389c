-- 0007_fts_insert_by_store: holomem writes a new fact's full-text row
-- itself, after the batch's facts rows, instead of the AFTER INSERT
-- trigger. Every facts INSERT opens a statement savepoint (it fires
-- triggers), and a savepoint makes FTS5 flush its pending terms: with the
-- trigger filling the index row by row, a bulk import wrote one index
-- segment per fact and spent its time merging them. The store also derives
-- the indexed text (tokens plus stems) on all cores before it takes the
-- write lock.
--
-- The trigger stays for other tools: holomem registers
-- holomem_fts_by_store() (always 1) on its connections, so the body never
-- runs there; a tool without holomem's functions fails to insert (no such
-- function) rather than leave a fact out of the index. Updates and deletes
-- keep their triggers.

DROP TRIGGER facts_fts_insert;

CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN holomem_fts_by_store() = 0 BEGIN
	INSERT INTO facts_fts(rowid, content, tags, scope)
	VALUES (new.id, holomem_fts(new.content), holomem_fts(new.tags),
		CASE WHEN new.superseded_by IS NULL THEN 'l' ELSE 's' END || hex(new.namespace));
END;
