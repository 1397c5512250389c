// Package sqlite implements [holomem.Store] on one SQLite file, with the
// pure-Go modernc.org/sqlite driver (FTS5 built in), so the binary stays
// static.
//
// # Schema
//
// The schema lives in numbered, embedded migrations (migration/*.sql),
// each applied in its own transaction; PRAGMA user_version holds the
// version and PRAGMA application_id marks the file as holomem's. [Open]
// refuses, with an error wrapping [holomem.ErrSchema], a file that is not
// SQLite, an SQLite file of another program, and a file written by a newer
// holomem (its version is above [LatestSchema]).
//
//   - facts: one row per fact. Times are unix nanoseconds. content_hash is
//     the first 8 bytes of SHA-256(content); UNIQUE(namespace, content_hash)
//     over the facts without an external key makes their content unique
//     per namespace (a hit is confirmed by comparing the content); facts
//     with a key are one record each of their source and may repeat it. external_key is unique per namespace when set. tags are
//     lower-case and space-separated (spaces inside a tag become '-').
//     embedding is little-endian float32 with its model_id; hrr is package
//     hrr's encoding. superseded_by points at the replacing fact and is set
//     to NULL if that fact is deleted.
//   - entities, entity_aliases, fact_entities: names derived from content by
//     text.Entities, resolved by text.EntityKey (exact equality, so '%' and
//     '_' are ordinary characters); an alias key resolves to its entity.
//     Entities no fact mentions any more are deleted.
//   - edges: (src, dst, kind) keyed, weight, origin, created_at; both ends
//     cascade on delete. superseded_by mirrors the supersedes edges.
//   - meta: small named values. Keys starting with "sqlite." are this
//     package's own.
//   - injections: the prompt hook's log.
//
// Each fact row is about 1.4 KB with a 1025-byte HRR vector; with indexes,
// entities and the full-text index a realistic fact costs about 1.6 KB on
// disk (BenchmarkSize_10k).
//
// # Full-text search
//
// facts_fts is a contentless FTS5 table (empty content option, contentless_delete=1)
// with three columns: content, tags and scope. The store writes a new fact's
// row itself, after the batch's facts rows and with the index text derived
// on all cores before the write lock (migration 0007: a trigger filling it
// row by row made FTS5 flush one segment per fact); triggers on facts keep
// it in sync on updates and deletes. content and tags hold holomem_fts(text): package text's IndexText,
// the normalised tokens (lower case, ё folded to е, diacritics removed)
// followed by the Snowball stems that differ from their token. The stems
// are indexed next to the raw tokens because FTS5 has no Russian stemmer and
// its porter tokenizer would also stem identifiers: with both, "россия"
// finds "России" and "deploying" finds "deployed" (text.MatchAll asks for
// the token or its stem), while an exact form matches twice and ranks
// higher. Folding ё matters because Russian text is written with and
// without it.
//
// scope holds one token per fact, 'l' || hex(namespace) while the fact is
// live and 's' || hex(namespace) once superseded, so a search filters by
// namespace and superseded state inside FTS5 and never reads the large
// facts rows of the matches it ranks. User terms are confined to
// {content tags}, so no word can match a scope token, and every term is a
// quoted FTS5 string built by text.MatchAll/MatchAny: user text is never
// parsed as FTS5 syntax nor concatenated into SQL.
//
// The index is contentless rather than external-content so that deleting a
// row needs only its rowid: an external-content 'delete' must be given the
// exact indexed values, and a stemmer upgrade would turn every later delete
// into index corruption. When package text changes what it indexes, the
// fingerprint of IndexText on a probe sentence changes and the next [Open]
// rebuilds the index ([Store.Reindex]).
//
// Other tools may open the file: reading, searching with plain MATCH,
// metadata updates (trust, category, counters) and deletes work with any
// SQLite 3.43+. Inserting facts or changing their content, tags or
// superseded_by fires triggers that need holomem's functions, so
// such writes must go through holomem; so must deleting a fact that
// superseded another when foreign keys are on (the older fact's
// superseded_by is cleared, which re-indexes it).
//
// # Change feed
//
// fact_changes (migration 0008) is the store's [holomem.ChangeFeeder]:
// triggers append the fact id, with a seq, on every insert, update and
// delete of a facts row and when its entity links are removed or moved;
// the store appends the facts whose links it adds without writing their
// row (link inserts have no trigger: it would make a bulk import open a
// statement journal per link). SQLite has one writer, so seq order is
// commit order and seqs have no gaps; the cursor is the last seq, and
// FactChanges reads from the row at the cursor on, so one indexed lookup
// says "nothing new" and a first row past cursor+1 says "pruned". Every
// 1024th row deletes the rows more than 50000 behind it. Writes of other
// processes and tools show up like the store's own. As a
// [holomem.OwnChangeFeeder], an entry is its seq: CreateFactLogged reads
// the head before the insert and the fact's first row after it, in the
// insert's transaction.
//
// # Concurrency
//
// A [Store] is safe for concurrent use. Reads run in parallel on a pool of
// connections, each in a deferred (snapshot) transaction. Writes are
// serialised in the process by a mutex and run on one dedicated connection
// whose transactions start with BEGIN IMMEDIATE: the write lock is taken at
// the start, so two processes writing the same file queue on the busy
// timeout (default 10 s) instead of failing with SQLITE_BUSY halfway
// through. The journal is WAL with synchronous=NORMAL: readers never block
// the writer, a crash of the process loses nothing committed, and a power
// loss can lose only the last transactions, never corrupt the file.
// Statements of the write path are prepared once and reused.
//
// # Caveats
//
// SearchText computes BM25 for every match before it keeps the top ones,
// so its cost grows with how many facts contain the query's terms. A bulk
// import runs about ten statements per fact (row, full-text index,
// entities); CreateFacts batches them in one transaction, and the
// full-text rows go in after the facts rows, so FTS5 writes the batch as
// one segment at commit.
package sqlite
