-- 0001_init: facts, entities, edges, meta and the full-text index.
--
-- Times are unix nanoseconds (INTEGER). Vectors are BLOBs: embedding is
-- little-endian float32, hrr is package hrr's encoding. content_hash is the
-- first 8 bytes of SHA-256(content) read as a big-endian signed integer; the
-- store compares content on a hash hit.

CREATE TABLE facts (
	id              INTEGER PRIMARY KEY,
	namespace       TEXT    NOT NULL,
	content         TEXT    NOT NULL,
	content_hash    INTEGER NOT NULL,
	category        TEXT    NOT NULL,
	tags            TEXT    NOT NULL DEFAULT '',
	source          TEXT    NOT NULL DEFAULT '',
	external_key    TEXT,
	trust           REAL    NOT NULL,
	retrieval_count INTEGER NOT NULL DEFAULT 0,
	helpful_count   INTEGER NOT NULL DEFAULT 0,
	unhelpful_count INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	superseded_by   INTEGER REFERENCES facts(id) ON DELETE SET NULL,
	anchor_path     TEXT,
	anchor_hash     TEXT,
	model_id        TEXT,
	embedding       BLOB,
	hrr             BLOB
);

CREATE UNIQUE INDEX facts_namespace_content_hash ON facts(namespace, content_hash);
CREATE UNIQUE INDEX facts_namespace_external_key ON facts(namespace, external_key) WHERE external_key IS NOT NULL;
CREATE INDEX facts_superseded_by ON facts(superseded_by) WHERE superseded_by IS NOT NULL;

CREATE TABLE entities (
	id        INTEGER PRIMARY KEY,
	namespace TEXT NOT NULL,
	name      TEXT NOT NULL,
	key       TEXT NOT NULL,
	UNIQUE (namespace, key)
);

CREATE TABLE entity_aliases (
	entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
	namespace TEXT    NOT NULL,
	alias     TEXT    NOT NULL,
	alias_key TEXT    NOT NULL,
	PRIMARY KEY (namespace, alias_key)
) WITHOUT ROWID;

CREATE INDEX entity_aliases_entity_id ON entity_aliases(entity_id);

-- pos keeps the order in which the entities appear in the content.
CREATE TABLE fact_entities (
	fact_id   INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
	pos       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (fact_id, entity_id)
) WITHOUT ROWID;

CREATE INDEX fact_entities_entity_id ON fact_entities(entity_id);

CREATE TABLE edges (
	src        INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	dst        INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	kind       TEXT    NOT NULL,
	weight     REAL    NOT NULL,
	origin     TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (src, dst, kind)
) WITHOUT ROWID;

CREATE INDEX edges_dst ON edges(dst);

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- The full-text index is contentless with contentless_delete (SQLite 3.43+):
-- it stores only the index of holomem_fts(content) and holomem_fts(tags),
-- and deleting a row needs only its rowid. See doc.go for why.
CREATE VIRTUAL TABLE facts_fts USING fts5(
	content, tags,
	content='', contentless_delete=1,
	tokenize="unicode61 remove_diacritics 2"
);

CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, content, tags)
	VALUES (new.id, holomem_fts(new.content), holomem_fts(new.tags));
END;

CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
END;

CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, tags ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
	INSERT INTO facts_fts(rowid, content, tags)
	VALUES (new.id, holomem_fts(new.content), holomem_fts(new.tags));
END;
