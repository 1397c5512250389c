-- 0003_fact_search: the full-text index moves to its own narrow table.
--
-- A facts row carries the 1 KB HRR vector inline, so ranking the matches
-- of a word read five or six facts per 8 KB page, and at 100k facts the
-- table outgrows the default shared_buffers. fact_search holds only what
-- search reads: id, namespace, whether the fact is live (not superseded)
-- and the tsvector (about 100 bytes for a short fact), like SQLite's
-- separate FTS5 table with its scope column.
--
-- live mirrors facts.superseded_by through a trigger, because a supersedes
-- edge, its deletion and ON DELETE SET NULL (the superseding fact deleted)
-- all change it.

CREATE TABLE fact_search (
	id        bigint   PRIMARY KEY REFERENCES facts(id) ON DELETE CASCADE,
	namespace text     NOT NULL,
	live      boolean  NOT NULL,
	fts       tsvector NOT NULL
);

INSERT INTO fact_search (id, namespace, live, fts)
SELECT id, namespace, superseded_by IS NULL, fts FROM facts;

CREATE INDEX fact_search_fts ON fact_search USING gin (fts);

DROP INDEX facts_fts;
ALTER TABLE facts DROP COLUMN fts;

CREATE FUNCTION holomem_fact_search_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE fact_search SET live = (NEW.superseded_by IS NULL) WHERE id = NEW.id;
	RETURN NULL;
END
$$;

CREATE TRIGGER facts_live AFTER UPDATE OF superseded_by ON facts
	FOR EACH ROW WHEN (OLD.superseded_by IS DISTINCT FROM NEW.superseded_by)
	EXECUTE FUNCTION holomem_fact_search_live();
