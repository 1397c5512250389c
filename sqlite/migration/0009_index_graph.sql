-- 0009_index_graph: the vector index owns the storage of its HNSW graphs
-- (holomem.IndexGraphStore). The bottom layer stays in edges: it is the
-- memory's similar_to neighbour graph (origin 'hnsw'), which recall walks
-- as meaning. The upper layers (edge kinds hnsw_l1 .. hnsw_l16 until now)
-- and each graph's description (meta 'hnsw:<namespace>': model, entry
-- point, counts) are index structure only: they move here, out of the
-- edges every door lists, exports and copies.

CREATE TABLE index_graphs (
	namespace   TEXT PRIMARY KEY,
	description TEXT NOT NULL
) WITHOUT ROWID;

-- One row per directed link of an upper layer. The facts' foreign keys
-- delete a fact's links with it, as they do its edges (a load then finds
-- the counts changed and rebuilds). src leads the key and dst has an
-- index so those deletes look rows up; a load reads by namespace.
CREATE TABLE index_links (
	namespace TEXT    NOT NULL,
	level     INTEGER NOT NULL,
	src       INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	dst       INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	PRIMARY KEY (src, level, dst)
) WITHOUT ROWID;

CREATE INDEX index_links_dst ON index_links(dst);
CREATE INDEX index_links_namespace ON index_links(namespace);

INSERT INTO index_links (namespace, level, src, dst)
SELECT f.namespace, CAST(substr(e.kind, 7) AS INTEGER), e.src, e.dst
FROM edges AS e JOIN facts AS f ON f.id = e.src
WHERE e.origin = 'hnsw' AND (e.kind GLOB 'hnsw_l[1-9]' OR e.kind GLOB 'hnsw_l1[0-6]');

DELETE FROM edges
WHERE origin = 'hnsw' AND (kind GLOB 'hnsw_l[1-9]' OR kind GLOB 'hnsw_l1[0-6]');

INSERT INTO index_graphs (namespace, description)
SELECT substr(key, 6), value FROM meta WHERE key GLOB 'hnsw:*' AND value != '';

DELETE FROM meta WHERE key GLOB 'hnsw:*';
