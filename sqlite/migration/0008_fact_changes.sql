-- 0008_fact_changes: a change feed of facts (holomem.ChangeFeeder). Warm
-- processes (serve, mcp) keep facts in memory and must see writes made by
-- other processes at once without reloading everything: before using
-- their copies they read the ids changed since their cursor (a seq).
--
-- Triggers record the fact id on every insert, update (any column:
-- counters and vectors too) and delete of a facts row, and when its entity
-- links are removed or moved, so writes of other tools are recorded as
-- well (for link inserts see below). SQLite has one writer at a time, so
-- seq order is commit order; AUTOINCREMENT takes the next seq after the
-- largest ever given, so seqs follow each other without gaps (a rolled-back
-- write rolls back its rows and its seqs): a follower whose next row is
-- not since+1 knows rows were pruned.
--
-- The feed keeps about the last 50000 changes: every 1024th row deletes
-- those older than that, a few hundred microseconds once in a while
-- instead of work on every write.

CREATE TABLE fact_changes (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	fact_id INTEGER NOT NULL
);

CREATE TRIGGER fact_changes_insert AFTER INSERT ON facts BEGIN
	INSERT INTO fact_changes (fact_id) VALUES (new.id);
END;

CREATE TRIGGER fact_changes_update AFTER UPDATE ON facts BEGIN
	INSERT INTO fact_changes (fact_id) VALUES (new.id);
END;

CREATE TRIGGER fact_changes_delete AFTER DELETE ON facts BEGIN
	INSERT INTO fact_changes (fact_id) VALUES (old.id);
END;

-- No trigger on inserts into fact_entities: a trigger makes every insert
-- there open a statement journal (SQLite cannot know it will do nothing),
-- and a bulk import links four or five entities per new fact; with it the
-- import spent a sixth more CPU. A new fact's insert has its row, and the
-- store records the links it adds to older facts itself (recurring terms
-- promoted, entities derived again: wtx.flushChanges). Another tool that
-- links entities by hand should touch the fact (any UPDATE of its row).

CREATE TRIGGER fact_changes_unlink AFTER DELETE ON fact_entities BEGIN
	INSERT INTO fact_changes (fact_id) VALUES (old.fact_id);
END;

-- Merging two entities moves links (rekeyEntities).
CREATE TRIGGER fact_changes_relink AFTER UPDATE ON fact_entities BEGIN
	INSERT INTO fact_changes (fact_id) VALUES (new.fact_id);
	INSERT INTO fact_changes (fact_id) SELECT old.fact_id WHERE old.fact_id <> new.fact_id;
END;

CREATE TRIGGER fact_changes_prune AFTER INSERT ON fact_changes WHEN new.seq % 1024 = 0 BEGIN
	DELETE FROM fact_changes WHERE seq <= new.seq - 50000;
END;
