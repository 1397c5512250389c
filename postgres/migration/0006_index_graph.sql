-- 0006_index_graph: the vector index owns the storage of its HNSW graphs
-- (holomem.IndexGraphStore). The bottom layer stays in edges: it is the
-- memory's similar_to neighbour graph (origin 'hnsw'), which recall walks
-- as meaning. The upper layers (edge kinds hnsw_l1 .. hnsw_l16 until now)
-- and each graph's description (meta 'hnsw:<namespace>': model, entry
-- point, counts) are index structure only: they move here, out of the
-- edges every door lists, exports and copies.

CREATE TABLE index_graphs (
	namespace   text PRIMARY KEY,
	description text NOT NULL
);

-- One row per directed link of an upper layer. The facts' foreign keys
-- delete a fact's links with it, as they do its edges (a load then finds
-- the counts changed and rebuilds). src leads the key and dst has an
-- index so those deletes look rows up; a load reads by namespace.
CREATE TABLE index_links (
	namespace text     NOT NULL,
	level     smallint NOT NULL,
	src       bigint   NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	dst       bigint   NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	PRIMARY KEY (src, level, dst)
);

CREATE INDEX index_links_dst ON index_links(dst);
CREATE INDEX index_links_namespace ON index_links(namespace);

INSERT INTO index_links (namespace, level, src, dst)
SELECT f.namespace, substr(e.kind, 7)::smallint, e.src, e.dst
FROM edges AS e JOIN facts AS f ON f.id = e.src
WHERE e.origin = 'hnsw' AND e.kind ~ '^hnsw_l([1-9]|1[0-6])$';

DELETE FROM edges WHERE origin = 'hnsw' AND kind ~ '^hnsw_l([1-9]|1[0-6])$';

INSERT INTO index_graphs (namespace, description)
SELECT substr(key, 6), value FROM meta WHERE key LIKE 'hnsw:%' AND value <> '';

DELETE FROM meta WHERE key LIKE 'hnsw:%';
