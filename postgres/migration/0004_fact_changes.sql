-- 0004_fact_changes: a change feed of facts (holomem.ChangeFeeder), the
-- twin of the SQLite store's migration 0008. Warm processes (serve, mcp)
-- keep facts in memory and, before using them, read the ids changed since
-- their cursor, so writes of other processes and replicas show up at once.
--
-- Sequence values are not commit order here: a transaction holding seq 11
-- can commit after one holding 12, and a follower that moved past 12 would
-- never see 11. So each row carries the writing transaction's id (xid,
-- pg_current_xact_id) and the cursor is an xid watermark: the xmin of a
-- snapshot, below which every transaction has ended (committed and
-- visible, or rolled back with its rows). FactChanges returns the rows
-- with since <= xid < xmin and moves the cursor to xmin (package postgres,
-- feed.go). A rolled-back write's rows are never visible.
--
-- Statement-level triggers with transition tables record every insert,
-- update (any column) and delete of facts rows and every change of
-- fact_entities links: one trigger call per statement, so a bulk import's
-- set-based inserts pay once. A fact is recorded once per transaction
-- (UNIQUE (xid, fact_id)), however many of its rows and links change.
--
-- seq only decides pruning: about every 1024 rows the trigger deletes
-- the rows of transactions older than the one 50000 rows back (and not
-- below the current xmin), and fact_changes_pruned.below remembers the
-- xid under which rows may be gone: a follower behind it reloads.

CREATE TABLE fact_changes (
	seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	xid     bigint NOT NULL,
	fact_id bigint NOT NULL,
	UNIQUE (xid, fact_id)
);

CREATE TABLE fact_changes_pruned (
	one   boolean PRIMARY KEY DEFAULT true CHECK (one),
	below bigint  NOT NULL
);
INSERT INTO fact_changes_pruned (below) VALUES (0);

CREATE FUNCTION holomem_fact_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	x  bigint := pg_current_xact_id()::text::bigint;
	lo bigint;
	hi bigint;
	cutoff bigint;
BEGIN
	IF TG_TABLE_NAME = 'facts' THEN
		IF TG_OP = 'DELETE' THEN
			WITH ins AS (INSERT INTO fact_changes (xid, fact_id) SELECT DISTINCT x, id FROM old_rows
				ON CONFLICT DO NOTHING RETURNING seq)
			SELECT min(seq), max(seq) INTO lo, hi FROM ins;
		ELSE
			WITH ins AS (INSERT INTO fact_changes (xid, fact_id) SELECT DISTINCT x, id FROM new_rows
				ON CONFLICT DO NOTHING RETURNING seq)
			SELECT min(seq), max(seq) INTO lo, hi FROM ins;
		END IF;
	ELSIF TG_OP = 'INSERT' THEN
		WITH ins AS (INSERT INTO fact_changes (xid, fact_id) SELECT DISTINCT x, fact_id FROM new_rows
			ON CONFLICT DO NOTHING RETURNING seq)
		SELECT min(seq), max(seq) INTO lo, hi FROM ins;
	ELSIF TG_OP = 'DELETE' THEN
		WITH ins AS (INSERT INTO fact_changes (xid, fact_id) SELECT DISTINCT x, fact_id FROM old_rows
			ON CONFLICT DO NOTHING RETURNING seq)
		SELECT min(seq), max(seq) INTO lo, hi FROM ins;
	ELSE
		WITH ins AS (INSERT INTO fact_changes (xid, fact_id)
				SELECT x, fact_id FROM new_rows UNION SELECT x, fact_id FROM old_rows
				ON CONFLICT DO NOTHING RETURNING seq)
		SELECT min(seq), max(seq) INTO lo, hi FROM ins;
	END IF;
	-- Prune when this statement's rows cross a multiple of 1024, unless
	-- another transaction is pruning right now.
	IF hi IS NOT NULL AND hi / 1024 > (lo - 1) / 1024
		AND pg_try_advisory_xact_lock(hashtext('holomem.fact_changes'), hashtext(current_schema())) THEN
		SELECT least(c.xid, pg_snapshot_xmin(pg_current_snapshot())::text::bigint) INTO cutoff
			FROM fact_changes c WHERE c.seq <= hi - 50000 ORDER BY c.seq DESC LIMIT 1;
		IF cutoff IS NOT NULL THEN
			DELETE FROM fact_changes WHERE xid < cutoff;
			UPDATE fact_changes_pruned SET below = greatest(below, cutoff);
		END IF;
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER facts_changes_insert AFTER INSERT ON facts
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_changes();
CREATE TRIGGER facts_changes_update AFTER UPDATE ON facts
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_changes();
CREATE TRIGGER facts_changes_delete AFTER DELETE ON facts
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_changes();
CREATE TRIGGER fact_entities_changes_insert AFTER INSERT ON fact_entities
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_changes();
CREATE TRIGGER fact_entities_changes_update AFTER UPDATE ON fact_entities
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_changes();
CREATE TRIGGER fact_entities_changes_delete AFTER DELETE ON fact_entities
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_changes();
