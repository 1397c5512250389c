-- 0002_keyed_duplicates: content is unique per namespace only among facts
-- without an external key, as in the SQLite store (its migration 0006): a
-- fact with a key is one record of its source, so two commits with the same
-- message stay two facts.

DROP INDEX facts_namespace_content_hash;
CREATE UNIQUE INDEX facts_namespace_content_hash ON facts(namespace, content_hash) WHERE external_key IS NULL;
CREATE INDEX facts_namespace_content_hash_all ON facts(namespace, content_hash);
