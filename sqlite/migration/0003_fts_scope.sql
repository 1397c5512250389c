-- 0003_fts_scope: the full-text index also holds each fact's scope, so a
-- search filters by namespace and superseded state inside FTS5 and never
-- reads the (large) facts rows of the matches it ranks.
--
-- scope is one token: 'l' || hex(namespace) while the fact is live,
-- 's' || hex(namespace) once another fact superseded it. Searches restrict user terms to {content tags}, so no
-- query word can match a scope token. Rebuilding needs holomem_fts, which
-- the store registers before it migrates.

DROP TRIGGER facts_fts_insert;
DROP TRIGGER facts_fts_delete;
DROP TRIGGER facts_fts_update;
DROP TABLE facts_fts;

CREATE VIRTUAL TABLE facts_fts USING fts5(
	content, tags, scope,
	content='', contentless_delete=1,
	tokenize="unicode61 remove_diacritics 2"
);

CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, content, tags, scope)
	VALUES (new.id, holomem_fts(new.content), holomem_fts(new.tags),
		CASE WHEN new.superseded_by IS NULL THEN 'l' ELSE 's' END || hex(new.namespace));
END;

CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
END;

CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, tags, namespace, superseded_by ON facts BEGIN
	DELETE FROM facts_fts WHERE rowid = old.id;
	INSERT INTO facts_fts(rowid, content, tags, scope)
	VALUES (new.id, holomem_fts(new.content), holomem_fts(new.tags),
		CASE WHEN new.superseded_by IS NULL THEN 'l' ELSE 's' END || hex(new.namespace));
END;

INSERT INTO facts_fts(rowid, content, tags, scope)
SELECT id, holomem_fts(content), holomem_fts(tags),
	CASE WHEN superseded_by IS NULL THEN 'l' ELSE 's' END || hex(namespace)
FROM facts;
