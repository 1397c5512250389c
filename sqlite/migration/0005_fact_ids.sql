-- 0005_fact_ids: a fact id is never given twice. Without AUTOINCREMENT
-- SQLite gives max(id)+1, so forgetting the newest fact made its id name the
-- next one (in any namespace), while agents and people still held the old
-- id. Rebuilding facts with AUTOINCREMENT would need foreign keys off,
-- which a migration's transaction cannot do, so the store keeps its own
-- high-water mark: the insert takes last+1 and the trigger below keeps
-- last at the largest id ever stored, whoever inserted it.

CREATE TABLE fact_ids (
	only INTEGER PRIMARY KEY CHECK (only = 1),
	last INTEGER NOT NULL
);

INSERT INTO fact_ids (only, last) SELECT 1, coalesce(max(id), 0) FROM facts;

CREATE TRIGGER fact_ids_insert AFTER INSERT ON facts BEGIN
	UPDATE fact_ids SET last = new.id WHERE only = 1 AND last < new.id;
END;
