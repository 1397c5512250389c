-- 0005_fact_counts: fact counts kept as writes happen, so no recall counts
-- rows.
--
-- Recall's BM25 needs the number of facts (every namespace) and of a
-- namespace's live facts, and the "found elsewhere" hint needs the list of
-- namespaces. Counting them with count(*) or DISTINCT read all of
-- fact_search or facts sequentially on every one-shot recall and hook
-- (20-70 ms at 100k facts). fact_counts holds the counts per namespace,
-- changed by statement-level triggers on fact_search (one call per
-- statement, so a bulk import's set-based inserts pay once).
--
-- Each namespace has up to 16 rows (shards), and a transaction adds its
-- delta to the shard of its backend (pg_backend_pid() % 16): concurrent
-- writers to one namespace then rarely wait on each other's row lock,
-- and a reader sums at most 16 rows. Deltas are written in namespace
-- order, so two writers take their row locks in the same order.

CREATE TABLE fact_counts (
	namespace text     NOT NULL,
	shard     smallint NOT NULL,
	facts     bigint   NOT NULL,
	live      bigint   NOT NULL,
	PRIMARY KEY (namespace, shard)
);

INSERT INTO fact_counts (namespace, shard, facts, live)
SELECT namespace, 0, count(*), count(*) FILTER (WHERE live) FROM fact_search GROUP BY namespace;

CREATE FUNCTION holomem_fact_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	sh smallint := pg_backend_pid() % 16;
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO fact_counts AS c (namespace, shard, facts, live)
		SELECT namespace, sh, count(*), count(*) FILTER (WHERE live) FROM new_rows
		GROUP BY namespace ORDER BY namespace
		ON CONFLICT (namespace, shard) DO UPDATE SET facts = c.facts + excluded.facts, live = c.live + excluded.live;
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO fact_counts AS c (namespace, shard, facts, live)
		SELECT namespace, sh, -count(*), -count(*) FILTER (WHERE live) FROM old_rows
		GROUP BY namespace ORDER BY namespace
		ON CONFLICT (namespace, shard) DO UPDATE SET facts = c.facts + excluded.facts, live = c.live + excluded.live;
	ELSE
		-- An update changes counts only when live (or the namespace) changes;
		-- the full-text updates of edits write nothing here.
		INSERT INTO fact_counts AS c (namespace, shard, facts, live)
		SELECT namespace, sh, sum(f), sum(l) FROM (
			SELECT o.namespace, -1 AS f, -(o.live::int) AS l FROM old_rows o JOIN new_rows n USING (id)
				WHERE o.live IS DISTINCT FROM n.live OR o.namespace IS DISTINCT FROM n.namespace
			UNION ALL
			SELECT n.namespace, 1, n.live::int FROM old_rows o JOIN new_rows n USING (id)
				WHERE o.live IS DISTINCT FROM n.live OR o.namespace IS DISTINCT FROM n.namespace
		) d
		GROUP BY namespace HAVING sum(f) <> 0 OR sum(l) <> 0 ORDER BY namespace
		ON CONFLICT (namespace, shard) DO UPDATE SET facts = c.facts + excluded.facts, live = c.live + excluded.live;
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER fact_search_counts_insert AFTER INSERT ON fact_search
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_counts();
CREATE TRIGGER fact_search_counts_delete AFTER DELETE ON fact_search
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_counts();
CREATE TRIGGER fact_search_counts_update AFTER UPDATE ON fact_search
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_counts();

CREATE FUNCTION holomem_fact_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM fact_counts;
	RETURN NULL;
END
$$;

CREATE TRIGGER fact_search_counts_truncate AFTER TRUNCATE ON fact_search
	FOR EACH STATEMENT EXECUTE FUNCTION holomem_fact_counts_truncate();
