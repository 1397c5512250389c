-- 0004_fts_vocab: document frequencies of the full-text index, so the
-- relaxed (any-term) search can leave out words that most facts contain:
-- ranking every fact that has "the" or "which" costs time and adds noise.

CREATE VIRTUAL TABLE facts_vocab USING fts5vocab(facts_fts, 'row');
