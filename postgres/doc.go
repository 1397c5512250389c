// Package postgres implements [holomem.Store] on PostgreSQL with
// github.com/jackc/pgx/v5, for teams whose agents share one memory from
// several machines. It passes the same conformance suite (package
// storetest) as the SQLite store; `holomem --db postgres://...` (or
// HOLOMEM_DB) selects it.
//
// # Schema
//
// Numbered, embedded migrations (migration/*.sql) run in one transaction
// under a transaction-scoped advisory lock (keyed by the schema), so two
// processes starting at once migrate once; holomem_schema holds the
// version. A schema written by a newer holomem, or one holding a table
// named like holomem's without holomem_schema (another program's), is
// refused with an error wrapping [holomem.ErrSchema], as on SQLite. The
// address's search_path selects the schema, so one database can hold
// several memories. Tables mirror SQLite's: facts (times as unix
// nanoseconds, embedding and HRR as bytea, the same content hash),
// entities, entity_aliases, fact_entities, edges, meta, injections, plus
// fact_search (below).
//
// # Full text
//
// fact_search holds one narrow row per fact: id, namespace, live (not
// superseded, kept by a trigger on facts.superseded_by) and a tsvector
// with a GIN index. The tsvector is built in Go from package text's tokens
// and Snowball stems, the words the SQLite index holds, with ё folded to е
// and Latin diacritics removed; the server's text search configurations
// (and extensions such as unaccent) are never needed. Every lexeme is
// quoted, in the stored vector and in queries, so user text is never read
// as tsquery syntax. Ranking is ts_rank with length normalisation (term
// frequency against document length; no collection statistics, so it is
// BM25-like rather than BM25), scaled to 0..1 exactly as the SQLite store
// scales BM25: all-term hits x / max x, any-term hits half that, ties by
// id. The relaxed search drops words in more than 5% of the namespace's
// live facts, counted up to that bound and cached for a minute.
//
// # Concurrency and replicas
//
// Reads that need one snapshot (FindFacts' page and total, Stats) run in
// REPEATABLE READ read-only transactions; single-statement reads go
// straight to the pool. Writes run in READ COMMITTED transactions that
// settle races with ON CONFLICT (two writers storing the same content end
// with one fact; two creating the same entity share it) and lock rows in
// id order. A serialization failure, deadlock or foreign key vanished
// under a concurrent delete reruns the whole transaction (up to 8 times,
// with backoff); [Store.Retries] counts those reruns. Every write
// transaction also sends a NOTIFY with its commit naming its schema and
// namespaces; [Store.Subscribe] LISTENs on a dedicated connection
// (reconnecting, and reporting "everything changed" after a gap), which
// `holomem serve` uses to reload its in-memory indexes when another
// replica writes.
//
// # Change feed
//
// fact_changes (migration 0004) is the store's [holomem.ChangeFeeder].
// Statement-level triggers with transition tables record, once per
// transaction and fact, the writing transaction's id (pg_current_xact_id)
// with the id of every fact whose row or entity links a statement
// inserted, updated or deleted. Sequence values are not commit order under
// concurrent writers (a transaction holding seq 11 can commit after one
// holding 12), so the cursor is an xid watermark: the xmin of a snapshot,
// below which every transaction has ended. FactChanges reads, in one
// statement, the rows of transactions in [cursor, xmin) (none of them can
// still commit, so none is missed) and returns xmin as the next cursor; it
// also reports at once the rows of transactions above xmin that have
// committed (at most 1000; they are reported again later), so a write
// transaction left open elsewhere in the cluster, which holds xmin back,
// does not delay the feed. About every 1024 rows a trigger prunes the rows
// of transactions older than the one 50000 rows back; fact_changes_pruned
// remembers the xid below which rows may be gone, and a follower behind it
// gets [holomem.ErrChangesPruned]. As a [holomem.OwnChangeFeeder], an
// entry is the pair (xid, fact id), unique per transaction and fact;
// CreateFactLogged reads its transaction's xid after the insert.
//
// # Caveats
//
// Connections use plan_cache_mode=force_custom_plan: a generic plan cannot
// see how selective a tsquery is and may scan every fact. The pool has 8
// connections by default (WithMaxConns); a scan (ScanHRR, ScanEmbeddings)
// holds one for its whole run. pgvector is not used: vectors are loaded
// into the process's matrix and HNSW graph as on SQLite.
package postgres
