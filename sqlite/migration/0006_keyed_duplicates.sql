-- 0006_keyed_duplicates: content is unique per namespace only among facts
-- without an external key. A fact with a key (a commit, an issue, a note)
-- is one record of its source, so two commits with the same message stay
-- two facts; before, the second was taken for the first ("already there").
-- The store looks key-less content up through the plain index below.

DROP INDEX facts_namespace_content_hash;
CREATE UNIQUE INDEX facts_namespace_content_hash ON facts(namespace, content_hash) WHERE external_key IS NULL;
CREATE INDEX facts_namespace_content_hash_all ON facts(namespace, content_hash);
