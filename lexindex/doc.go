// Package lexindex is an in-memory inverted index of facts' stems, for
// warm processes (serve, mcp): recall takes its lexical candidates from it
// (exact BM25 top-k over every fact of a namespace that shares a query
// stem, in microseconds where SQLite FTS5's bm25() took milliseconds) and
// write-time hygiene its similar-fact candidates. It holds no text and
// reads no store: its owner puts and deletes [Doc]s as facts change.
//
// # Terms
//
// [TermsOf] is the one definition of a fact's terms (distinct stems with
// counts, token count, content stem set), shared with package retrieve's
// re-scoring, so a fact scores the same from the index and from a fact
// read from the store. A [Stemmer] memoises stems for bulk loads.
//
// # Layout
//
// Stems are interned once; each has its document frequency (all
// namespaces) and, per namespace, a posting list of (slot uint32, count
// uint8; larger counts in a side map) in ascending slot order, so a search
// walks only its namespace's facts. A slot is a row of the document table (id, namespace
// number and flags, length, and the slot's term numbers as varint deltas,
// for deletes). Put appends a slot; Delete and replacing Puts
// tombstone the old one, and when tombstones are a third of the slots the
// index compacts, renumbering slots in id order. A Put of the same terms
// (a fact superseded or restored) updates the slot in place.
//
// # Caveats
//
// Namespaces are compared as given: pass the namespace the store holds
// (the store's default for an empty one). Document frequencies count
// stems; the SQLite store's full-text index also counts surface words, so
// for the few words Snowball does not stem idempotently ("release" ->
// releas -> relea) its counts, and so [Index.Similar]'s matches, can be
// larger than the index's; see [Index.Similar].
package lexindex
