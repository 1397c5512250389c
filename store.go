package holomem

import (
	"context"
	"fmt"
	"reflect"
	"time"
)

// Store persists facts, entities and edges: the union of the small
// interfaces below. Implementations are safe for concurrent use and
// serialise their own writes. Callers ask for the smallest piece they need
// ([FactStore], [SearchStore], [EntityStore], [VectorStore], [EdgeStore],
// [MetaStore], [TelemetryStore], [IndexGraphStore]) so a second backend, a test double or a
// read-only view only has to provide what is used.
//
// Stores derive entities and the full-text index themselves (both are pure
// functions of the content); the holographic vector and the embedding are
// computed by the caller and passed in Fact.HRR and [VectorStore.SetEmbeddings].
type Store interface {
	FactStore
	SearchStore
	EntityStore
	VectorStore
	EdgeStore
	MetaStore
	TelemetryStore
	IndexGraphStore

	// Close releases the store.
	Close() error
}

// FactStore creates, reads, changes and removes facts.
type FactStore interface {
	// CreateFact stores f after normalising and validating it, and fills its
	// ID, timestamps and entities. When the namespace already holds the same
	// external key, or f has no key and the namespace holds the same content,
	// it loads the existing fact into f and returns created == false (facts
	// with distinct keys are distinct records, even with equal content). Non-zero CreatedAt/UpdatedAt and counters
	// are kept (imports restore them). Returns ErrInvalid for bad input.
	CreateFact(ctx context.Context, f *Fact) (created bool, err error)
	// CreateFacts stores many facts in one transaction (bulk import), with
	// the same duplicate rules as CreateFact, and returns which were new.
	CreateFacts(ctx context.Context, fs []*Fact) (created []bool, err error)
	// FindFactByID returns ErrNotFound if no fact has that id.
	FindFactByID(ctx context.Context, id int64) (*Fact, error)
	// FindFactByExternalKey returns ErrNotFound if the namespace has no such key.
	FindFactByExternalKey(ctx context.Context, namespace, key string) (*Fact, error)
	// FindFacts returns the facts matching the filter, ordered by id, and the
	// total number that match ignoring Offset and Limit.
	FindFacts(ctx context.Context, filter FactFilter) ([]*Fact, int, error)
	// UpdateFact applies upd and returns the new fact. Returns ErrNotFound
	// or ErrInvalid; ErrConflict if new content duplicates another fact.
	UpdateFact(ctx context.Context, id int64, upd FactUpdate) (*Fact, error)
	// DeleteFact removes a fact, its entity links and its edges. Returns ErrNotFound.
	DeleteFact(ctx context.Context, id int64) error
	// RecordFeedback moves trust by one vote ([ApplyFeedback]) without
	// touching UpdatedAt. Returns ErrNotFound.
	RecordFeedback(ctx context.Context, id int64, helpful bool) (*Fact, error)
	// MarkRetrieved adds one to the retrieval count of each fact.
	MarkRetrieved(ctx context.Context, ids []int64) error
	// Supersede records that newer replaces older (a supersedes edge) and
	// hides older from recall. Returns ErrNotFound or ErrInvalid.
	Supersede(ctx context.Context, older, newer int64) error
}

// SearchStore is the full-text channel.
type SearchStore interface {
	// SearchText runs the full-text channel: the query is data, never FTS
	// syntax. It tries all terms first and relaxes to any term when that
	// finds fewer than limit facts. Scores are BM25 normalised to 0..1.
	// Superseded facts are skipped unless an option includes them.
	SearchText(ctx context.Context, namespace, query string, limit int, opts ...SearchOption) ([]TextMatch, error)
}

// EntityStore reads the entities the store derives from content.
type EntityStore interface {
	// FactIDsByEntity returns the ids of facts linked to the entity (aliases
	// resolved, case-insensitive), ordered by id.
	FactIDsByEntity(ctx context.Context, namespace, name string) ([]int64, error)
	// FindEntity resolves a name or alias. Returns ErrNotFound.
	FindEntity(ctx context.Context, namespace, name string) (*Entity, error)
	// EntityAliases returns the namespace's aliases: alias key (see
	// text.EntityKey) -> the name of the entity the alias stands for.
	EntityAliases(ctx context.Context, namespace string) (map[string]string, error)
	// FindEntities lists entities by fact count (descending, then name).
	FindEntities(ctx context.Context, namespace string, limit int) ([]*Entity, error)
	// EntitiesOf returns the entity names linked to each fact.
	EntitiesOf(ctx context.Context, ids []int64) (map[int64][]string, error)
}

// VectorStore keeps the per-fact vectors: the holographic vector written
// with the fact and the sentence embeddings written per model.
type VectorStore interface {
	// ScanHRR calls fn with each fact's HRR vector in the namespace (not
	// superseded unless asked), in id order; fn must not keep v.
	ScanHRR(ctx context.Context, namespace string, includeSuperseded bool, fn func(id int64, v []byte) error) error
	// SetEmbeddings stores vectors made by model for the given facts.
	SetEmbeddings(ctx context.Context, model string, vecs map[int64][]float32) error
	// ScanEmbeddings calls fn with every vector of model in the namespace
	// ("" = all namespaces) in id order, superseded facts included; fn must
	// not keep v.
	ScanEmbeddings(ctx context.Context, namespace, model string, fn func(id int64, v []float32) error) error
}

// EdgeStore keeps typed edges between facts.
type EdgeStore interface {
	// CreateEdge stores an edge; created is false if it already existed
	// (its weight is updated). Returns ErrNotFound for unknown facts.
	CreateEdge(ctx context.Context, e *Edge) (created bool, err error)
	// CreateEdges stores many edges in one transaction (imports, graph build).
	CreateEdges(ctx context.Context, es []*Edge) (created int, err error)
	// DeleteEdge removes one edge. Returns ErrNotFound.
	DeleteEdge(ctx context.Context, from, to int64, kind EdgeKind) error
	// DeleteEdges removes the edges matching filter (graph rebuild) and
	// returns how many. It honours every field but Limit; an empty filter
	// (or one with a Limit) returns ErrInvalid rather than deleting
	// everything. Deleting supersedes edges makes the facts they hid
	// visible again.
	DeleteEdges(ctx context.Context, filter EdgeFilter) (int, error)
	// FindEdges returns matching edges ordered by (from, to, kind). Every
	// EdgeFilter field filters, Origin included.
	FindEdges(ctx context.Context, filter EdgeFilter) ([]*Edge, error)
}

// IndexGraphStore is the storage the vector index owns for its HNSW
// graphs, one per namespace, apart from the edges. A graph's bottom layer
// is the memory's similar_to edges (origin [OriginHNSW]): recall's graph
// channel reads them as meaning, so the index is built over edges that
// exist anyway. Everything else is index structure only: the links of the
// upper layers, the entry point and the build's bookkeeping. They live
// here so that no door (edges listing, web, MCP, export, copy) ever sees
// them as edges, and [Edge] knows nothing of layers.
//
// The store keeps the description as given; the index reads it (entry
// point, model, counts) to decide whether it trusts the stored graph.
// Deleting a fact deletes the links that touch it, as it does its edges.
type IndexGraphStore interface {
	// IndexGraph returns the description stored with namespace's graph.
	// Returns ErrNotFound when the namespace has no stored graph.
	IndexGraph(ctx context.Context, namespace string) (string, error)
	// IndexLinks returns the upper-layer links of namespace's graph,
	// ordered by (level, from, to).
	IndexLinks(ctx context.Context, namespace string) ([]IndexLink, error)
	// SaveIndexGraph replaces namespace's description and upper-layer
	// links in one transaction: a reader sees the old graph or the new
	// one. Returns ErrInvalid for a link that is not an upper-layer link
	// (level outside 1..[IndexMaxLevel], an id <= 0, a self-loop) and
	// ErrNotFound for a link to an unknown fact.
	SaveIndexGraph(ctx context.Context, namespace, desc string, links []IndexLink) error
	// DeleteIndexGraph removes namespace's description and links (none
	// stored is not an error).
	DeleteIndexGraph(ctx context.Context, namespace string) error
}

// IndexMaxLevel is the highest HNSW layer an [IndexLink] may hold (the
// hnsw package caps levels at 16).
const IndexMaxLevel = 16

// IndexLink is one directed link of an HNSW upper layer (1..IndexMaxLevel)
// between two facts, as [IndexGraphStore] keeps it.
type IndexLink struct {
	Level    int
	From, To int64
}

// Validate reports whether l can be stored as an upper-layer link.
func (l IndexLink) Validate() error {
	switch {
	case l.Level < 1 || l.Level > IndexMaxLevel:
		return fmt.Errorf("%w: index link level %d outside 1..%d", ErrInvalid, l.Level, IndexMaxLevel)
	case l.From <= 0 || l.To <= 0:
		return fmt.Errorf("%w: index link needs two fact ids, got %d -> %d", ErrInvalid, l.From, l.To)
	case l.From == l.To:
		return fmt.Errorf("%w: index link from fact %d to itself", ErrInvalid, l.From)
	}
	return nil
}

// MetaStore describes the store and keeps small named values.
type MetaStore interface {
	// Stats summarises the store for doctor and stats.
	Stats(ctx context.Context, namespace string) (*Stats, error)
	// SetMeta and Meta keep small named values (index state, canary results).
	SetMeta(ctx context.Context, key, value string) error
	// Meta returns ErrNotFound if the key was never set.
	Meta(ctx context.Context, key string) (string, error)
}

// TelemetryStore logs the prompt hook's runs; it is apart from the facts
// because a hook failure must still be recorded and reported by doctor.
type TelemetryStore interface {
	// LogInjection records one run of the prompt hook.
	LogInjection(ctx context.Context, inj Injection) error
	// InjectionStats summarises the hook runs since a time.
	InjectionStats(ctx context.Context, since time.Time) (*InjectionStats, error)
}

// SearchOptions tune [SearchStore.SearchText]; build them with SearchOption funcs.
type SearchOptions struct {
	// IncludeSuperseded also searches facts another fact replaced.
	IncludeSuperseded bool
	// AnyTerm ranks every fact with any query term by BM25 at once,
	// without first requiring all terms (recall widens its candidates
	// this way and lets fusion decide).
	AnyTerm bool
	// MaxTermDocs, when positive, bounds the relaxed any-term search to
	// the words found in at most that many facts (the rarest word is always
	// kept). Write-time hygiene sets it: its cost must not grow with the
	// store. Stores that cannot count documents per word may ignore it.
	MaxTermDocs int
	// TermDocs, when set, maps stems of the query's words to the number
	// of facts holding them, as [TermStatser.TermStats] reported them:
	// recall looks them up for BM25 anyway, and a store that bounds its
	// any-term search by them need not look them up again.
	TermDocs map[string]int64
}

// SearchOption sets one of [SearchOptions].
type SearchOption func(*SearchOptions)

// WithSuperseded makes a search include superseded facts.
func WithSuperseded() SearchOption {
	return func(o *SearchOptions) { o.IncludeSuperseded = true }
}

// WithAnyTerm makes a search rank facts with any of the terms (see [SearchOptions.AnyTerm]).
func WithAnyTerm() SearchOption {
	return func(o *SearchOptions) { o.AnyTerm = true }
}

// WithTermDocs passes the query stems' document frequencies (see
// [SearchOptions.TermDocs]).
func WithTermDocs(df map[string]int64) SearchOption {
	return func(o *SearchOptions) { o.TermDocs = df }
}

// WithMaxTermDocs bounds the relaxed search to words found in at most n
// facts (see [SearchOptions.MaxTermDocs]).
func WithMaxTermDocs(n int) SearchOption {
	return func(o *SearchOptions) { o.MaxTermDocs = n }
}

// ApplySearchOptions folds opts into a SearchOptions value (for stores).
func ApplySearchOptions(opts []SearchOption) SearchOptions {
	var o SearchOptions
	for _, fn := range opts {
		fn(&o)
	}
	return o
}

// TextMatch is one full-text hit: the fact id and its normalised BM25 score.
type TextMatch struct {
	ID    int64
	Score float64
}

// Stats describe a store.
type Stats struct {
	SchemaVersion int            `json:"schema_version"`
	Path          string         `json:"path,omitempty"`
	SizeBytes     int64          `json:"size_bytes"`
	Facts         int            `json:"facts"`
	Superseded    int            `json:"superseded"`
	Entities      int            `json:"entities"`
	Edges         map[string]int `json:"edges"`
	Namespaces    map[string]int `json:"namespaces"`
	Categories    map[string]int `json:"categories"`
	// Models counts facts with a vector per model id.
	Models map[string]int `json:"models"`
	// WithoutHRR counts facts with no holographic vector.
	WithoutHRR int `json:"without_hrr"`
	// EdgeActivity counts edges per "kind/origin" created in the last 7
	// days, the 30 days before and earlier (doctor's liveness check).
	EdgeActivity []EdgeActivity `json:"edge_activity,omitempty"`
}

// EdgeActivity is how many edges of one kind and origin were created recently vs before.
type EdgeActivity struct {
	Kind     EdgeKind  `json:"kind"`
	Origin   string    `json:"origin"`
	Last7d   int       `json:"last_7d"`
	Prev30d  int       `json:"prev_30d"`
	Older    int       `json:"older"`
	Newest   time.Time `json:"newest"`
	Stalled  bool      `json:"stalled"`
	Comments string    `json:"comment,omitempty"`
}

// Embedder turns texts into L2-normalised sentence vectors.
// Implementations are safe for concurrent use.
type Embedder interface {
	// ModelID names the model, its revision and pooling; vectors of
	// different ids are never compared.
	ModelID() string
	// Dim is the vector length.
	Dim() int
	// Embed returns one vector per text. It gives up when ctx is done.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Remembered is what [Memory.Remember] reports: the stored (or existing)
// fact and what write-time hygiene found.
type Remembered struct {
	Fact *Fact `json:"fact"`
	// Created is false when the content already existed in the namespace.
	Created bool `json:"created"`
	// NearDuplicates are facts saying nearly the same thing.
	NearDuplicates []Hit `json:"near_duplicates,omitempty"`
	// Contradictions say something conflicting about the same subject
	// (another value, another number, or negated): candidates for
	// `supersede`.
	Contradictions []Hit `json:"contradictions,omitempty"`
	// Refinements are facts the new one restates with more detail (or
	// that restate it with more): candidates for `supersede` or `link`.
	Refinements []Hit `json:"refinements,omitempty"`
	// Risks say why the content reads as instructions to a model (memory
	// poisoning): it is stored as given and shown as quoted data, flagged.
	Risks []string `json:"risks,omitempty"`
}

// Memory is the agent-facing service: it writes through a [Store], keeps the
// derived data (HRR, embeddings, in-memory indexes) in sync, and recalls.
// Implementations are safe for concurrent use.
type Memory interface {
	Remember(ctx context.Context, f *Fact) (*Remembered, error)
	Recall(ctx context.Context, q Query) (*Result, error)
	Update(ctx context.Context, id int64, upd FactUpdate) (*Fact, error)
	Forget(ctx context.Context, id int64) error
	Feedback(ctx context.Context, id int64, helpful bool) (*Fact, error)
	Supersede(ctx context.Context, older, newer int64) error
	// Link stores an edge written by hand between two facts of namespace
	// ("" = any namespace) after [Edge.ValidateLink]; an empty Origin
	// becomes [OriginUser]. created is false when the edge existed (its
	// weight is updated). Returns ErrInvalid (reserved kinds and origins
	// included) or ErrNotFound (a fact missing or in another namespace).
	Link(ctx context.Context, namespace string, e *Edge) (created bool, err error)
	// Unlink deletes one edge between two facts of namespace ("" = any),
	// with the rules of [ValidateUnlink]. Returns ErrInvalid or ErrNotFound.
	Unlink(ctx context.Context, namespace string, from, to int64, kind EdgeKind) error
	// Chain follows edges of kinds (none: causal) both ways from fact id,
	// at most depth hops (<= 0: DefaultChainDepth): what led to the fact and
	// what it led to, each fact once with a shortest path, backward steps
	// first, then by depth and id. It reads only the fact's neighbourhood.
	// Returns ErrNotFound for an unknown id.
	Chain(ctx context.Context, id int64, kinds []EdgeKind, depth int) ([]ChainStep, error)
	// Diagnose checks the whole store for doctor: vectors and HRR
	// coverage, edge liveness, anchors, the vector index (running the
	// recall canary) and the prompt hook's recent runs, judged with the
	// thresholds above.
	Diagnose(ctx context.Context) (*Diagnosis, error)
	// Status says what the memory runs with for namespace: live channels,
	// model, weights, the vector index's mode and canary, counts.
	Status(ctx context.Context, namespace string) (*Status, error)
	// Probe returns facts about the entity, ranked by holographic similarity.
	Probe(ctx context.Context, namespace, entity string, limit int) ([]Hit, error)
	// Related returns entities structurally connected to the entity.
	Related(ctx context.Context, namespace, entity string, limit int) ([]EntityHit, error)
	// Reason returns facts involving all the entities first (score = min over entities).
	Reason(ctx context.Context, namespace string, entities []string, limit int) ([]Hit, error)
}

// ImportBatches is one bulk import fed batch by batch in order
// (retrieve.Memory's ImportBatches): a batch's preparation (HRR vectors,
// derived text) runs while the batch before it is written, and each batch
// is one transaction. Facts get the ids they would get from importing the
// batches one after another. Use it from one goroutine.
type ImportBatches interface {
	// Add prepares facts and queues them for the writer. It blocks while
	// two batches wait for it. It returns the first error of this import
	// (an invalid fact, a failed write, ctx done); nothing is in flight
	// then, and every later Add and Wait returns the same error.
	Add(facts []*Fact) error
	// Wait returns when every batch is written, with the first error.
	Wait() error
}

// Outcomes of one prompt hook run ([Injection.Outcome]).
const (
	InjectionInjected = "injected"
	InjectionEmpty    = "empty"
	InjectionTimeout  = "timeout"
	InjectionFailed   = "failed"
)

// Injection is one run of the prompt hook, logged so doctor can show how
// often memory was injected, empty, failed or missed its deadline.
type Injection struct {
	At        time.Time `json:"at"`
	Namespace string    `json:"namespace"`
	// Outcome is InjectionInjected, InjectionEmpty, InjectionTimeout or InjectionFailed.
	Outcome string        `json:"outcome"`
	Hits    int           `json:"hits"`
	Took    time.Duration `json:"took_ns"`
	Detail  string        `json:"detail,omitempty"`
}

// InjectionStats summarise hook runs since a time: counts per outcome and
// latency percentiles.
type InjectionStats struct {
	Since    time.Time      `json:"since"`
	Total    int            `json:"total"`
	Outcomes map[string]int `json:"outcomes"`
	P50      time.Duration  `json:"p50_ns"`
	P99      time.Duration  `json:"p99_ns"`
}

// MetaEntityFingerprint is the meta key holding the text.EntityFingerprint
// a store's entities were derived with. Stores set it when they create a
// database (no fact was derived otherwise); backfill sets it after deriving
// every fact's entities again, and does nothing while it matches.
const MetaEntityFingerprint = "entities.fingerprint"

// Optional store capabilities.
//
// A backend implements [Store]; everything below is optional, found by a
// type assertion through [As], and listed in [Capabilities] (a test fails
// when an interface declared here is missing from that table). Each says
// why it exists and which backends implement it; a backend that lacks one
// its sibling has says why. Callers degrade to the required parts when a
// capability is missing, so a test double or a read-only view need not
// implement any of them.

// EntityRelinker is an optional [Store] extension: it derives the entities
// of the facts with ids after afterID (at most limit of them, by id) again
// with the current rules, links and unlinks accordingly, prunes entities
// no fact names any more, and returns the last id it did (0 when there
// were none). Backfill runs it over the store when entity extraction
// changed (lower-case terms, Russian name keys), so old facts get what
// new ones get. Implemented by sqlite and postgres.
type EntityRelinker interface {
	RelinkEntities(ctx context.Context, afterID int64, limit int) (lastID int64, err error)
}

// ChangeFeeder is an optional [Store] extension: a feed of the facts
// changed, by this process or any other writing the same database. A warm
// process (serve, mcp) keeps in-memory copies of facts (a lexical index, a
// row cache); before using them it asks for the ids changed since its
// cursor and reloads those rows only, so a write made elsewhere (a CLI add
// while serve runs) is seen at once without reloading everything.
//
// A change is a fact's row inserted, updated (any column, the retrieval
// and feedback counters and the vectors included) or deleted, or one of
// its entity links added, removed or moved. Edges are not in the feed
// except where they change a facts row (a supersedes edge sets
// superseded_by). A rolled-back write leaves no change. Stores keep a
// bounded history (see [MaxFactChanges] and [ErrChangesPruned]).
// Implementations are safe for concurrent use. Implemented by sqlite and
// postgres.
type ChangeFeeder interface {
	// FactChangeCursor is the cursor of now: a follower that loads the facts
	// after taking it, then asks FactChanges(cursor), misses no write.
	FactChangeCursor(ctx context.Context) (int64, error)
	// FactChanges returns the ids of facts changed after cursor since (a
	// fact's row inserted, updated or deleted, or its entity links changed),
	// oldest first (an id may repeat), and the cursor to pass next time.
	// With nothing new it returns no ids and a next cursor (usually
	// since), and costs one indexed lookup. When changes after since were
	// pruned, since is not a cursor of this database, or more than
	// [MaxFactChanges] are pending, it returns an error wrapping
	// [ErrChangesPruned] with a valid next cursor: the follower reloads
	// everything and continues from next.
	FactChanges(ctx context.Context, since int64) (ids []int64, next int64, err error)
}

// FactChange is one entry of a change feed: the fact changed (ID) and
// where the change sits in the feed (At: a sequence number, or the id of
// the transaction that made it). A feed may report an entry more than
// once, always the same; two different changes are never the same entry.
type FactChange struct {
	At, ID int64
}

// OwnChangeFeeder is an optional [ChangeFeeder] extension for a follower
// that also writes (serve and mcp add facts): the store's write says which
// feed entry it made, and the feed says which entry each change is, so the
// follower applies what it wrote from the fact it holds instead of reading
// the row back, while every other change, whoever made it and wherever it
// falls, is read as before. Implemented by sqlite and postgres.
type OwnChangeFeeder interface {
	ChangeFeeder
	// FactChangeLog is [ChangeFeeder.FactChanges] with each change's
	// entry, in the same order and with the same cursors and errors.
	FactChangeLog(ctx context.Context, since int64) (changes []FactChange, next int64, err error)
	// CreateFactLogged is [FactStore.CreateFact] that also returns the
	// feed entry of the insert of f's row (the zero entry when f existed
	// and nothing was written). Changes the same transaction made to
	// other facts (links added to older facts) have entries of their own
	// that it does not return, as do later changes of f's links.
	CreateFactLogged(ctx context.Context, f *Fact) (created bool, change FactChange, err error)
}

// MaxFactChanges bounds the ids one [ChangeFeeder.FactChanges] call
// returns. A follower further behind (a bulk import, an embedding
// backfill) gets [ErrChangesPruned] instead: reloading everything once is
// then cheaper than reloading that many rows one batch at a time, and the
// answer stays small.
const MaxFactChanges = 10000

// HealthChecker is an optional [Store] extension for long-running servers:
// Health reports whether the store can serve requests now (the database
// file still at its path; the database server reachable), so a health
// probe says so instead of answering "ok" while every request fails.
// Implemented by sqlite (the file still at its path) and postgres (a ping).
type HealthChecker interface {
	Health(ctx context.Context) error
}

// TermStatser is an optional [SearchStore] extension for callers that
// score full text themselves (recall re-scores its candidates with BM25
// over stems, parameters chosen by measurement): the number of facts the
// full-text index holds and how many contain each term. Statistics cover
// the whole index, as FTS5's own bm25() does. Implemented by sqlite and
// postgres.
type TermStatser interface {
	TermStats(ctx context.Context, terms []string) (docs int64, df []int64, err error)
}

// WordFinder is an optional [SearchStore] extension: the facts whose
// text holds words, unranked. Probe, reason and related take the facts
// that name an entity in their text but are not linked to it (a name that
// opened a sentence before the store knew the entity: the fact's
// holographic vector holds it, its links do not) from here, so their
// candidates come from postings instead of a scan of every vector.
// Implemented by sqlite and postgres.
type WordFinder interface {
	// FactIDsWithWords returns, in id order, the ids of the namespace's
	// facts that are not superseded, have an id below beforeID (0: no
	// bound) and hold in their content or tags every one of words (tokens
	// of package text) and, for each of prefixes, a word starting with it
	// (a Cyrillic name's stem, see text.EntityKey). Neither returns no ids.
	FactIDsWithWords(ctx context.Context, namespace string, words, prefixes []string, beforeID int64) ([]int64, error)
}

// ChangeNotifier is an optional [Store] extension: it reports writes
// other processes commit, as they commit them, so a long-running process
// (serve, mcp) syncs at once instead of at its next refresh tick
// (retrieve.Memory.Maintain). fn gets the namespace written ("": any may
// have changed) on the notifier's goroutine and must return quickly.
// Implemented by postgres (LISTEN/NOTIFY). SQLite has no channel between
// processes sharing a file: its followers ask the [ChangeFeeder] on each
// refresh, which costs one indexed lookup when nothing changed.
type ChangeNotifier interface {
	Subscribe(fn func(namespace string)) (cancel func())
}

// FileChecker is an optional [Store] extension for stores kept in a local
// file: CheckFile reports an error wrapping [ErrStoreMoved] when the path
// the store was opened from no longer names the file it holds open (a
// restore or a copy over it, rm), since the writes of a process holding a
// replaced file would be lost when it exits. serve watches it. Implemented
// by sqlite. PostgreSQL has no file to move; [HealthChecker] covers a
// server that went away.
type FileChecker interface {
	CheckFile() error
}

// WALNoticer is an optional [Store] extension for stores with a
// write-ahead log that can be found cut when the store opens: WALNotice
// returns the recorded notice ("" when none), which doctor shows until
// verify clears it. Implemented by sqlite. PostgreSQL recovers its own
// WAL in the server; a client never sees a cut one.
type WALNoticer interface {
	WALNotice(ctx context.Context) (string, error)
}

// NamespaceLister is an optional [Store] extension: the namespaces that
// hold facts, sorted, read cheaply. Recall's "found elsewhere" hint asks
// for them when a recall finds nothing; without it the hint reads
// [MetaStore.Stats], which counts every fact. Implemented by sqlite (an
// index) and postgres (kept counts).
type NamespaceLister interface {
	Namespaces(ctx context.Context) ([]string, error)
}

// SimilarFactFinder is an optional [SearchStore] extension: write-time
// hygiene's candidate search, bounded by the number of facts per term
// (maxTermDocs) rather than by the namespace, since every add runs it.
// It returns up to limit live facts of the namespace that share the most
// of terms, best first (ties: newest first), scores in 0..1. Without it
// hygiene falls back to SearchText, which ranks every fact holding a term
// at a cost that grows with the namespace. Implemented by sqlite and
// postgres.
type SimilarFactFinder interface {
	SimilarFacts(ctx context.Context, namespace string, terms []string, limit, maxTermDocs int) ([]TextMatch, error)
}

// RecentEntityFacts is an optional [EntityStore] extension: the ids of the
// newest limit facts linked to the entity (aliases resolved), in id order,
// none for an unknown entity. Write-time hygiene takes contradiction
// candidates from an entity's newest facts; [EntityStore.FactIDsByEntity]
// would read all of a popular entity's thousands. Implemented by sqlite
// and postgres.
type RecentEntityFacts interface {
	RecentFactIDsByEntity(ctx context.Context, namespace, name string, limit int) ([]int64, error)
}

// RecentEntitiesFacts is [RecentEntityFacts] for several names in one read
// (hygiene asks for up to five entities on every add): ids[i] are
// names[i]'s (nil for an unknown entity). Implemented by sqlite and
// postgres.
type RecentEntitiesFacts interface {
	RecentFactIDsByEntities(ctx context.Context, namespace string, names []string, limit int) ([][]int64, error)
}

// FactBrowser is an optional [FactStore] extension that lists facts for
// people: any order, any page, without reading past the page (keyset
// paging; see [BrowseFilter]). The web UI's browse page and status charts
// need it. Implemented by sqlite and postgres (each with partial indexes
// for the orders).
type FactBrowser interface {
	// BrowseFacts returns up to Limit facts matching filter in its order,
	// after filter.After. The facts' Entities, Embedding and HRR are not
	// loaded. Returns ErrInvalid for a filter Validate refuses.
	BrowseFacts(ctx context.Context, filter BrowseFilter) ([]*Fact, error)
	// CountFacts returns how many facts match filter, ignoring After and Limit.
	CountFacts(ctx context.Context, filter BrowseFilter) (int, error)
}

// FactPreparer is an optional [FactStore] extension that splits
// [FactStore.CreateFacts] in two: PrepareFacts validates fs and derives
// what needs no database (content hashes, indexed text, entities) at once,
// and returns the write, which stores them in one transaction. A bulk
// import prepares the next batch while the write of the one before runs
// (retrieve.Memory.ImportBatches), so a single writer only writes. known
// holds a caller's entity extraction per fact (nil where it has none) for
// the store to reuse. K is *text.Extraction; it is a type parameter only
// because this package may not import package text, and consumers name
// FactPreparer[*text.Extraction]. Implemented by sqlite and postgres.
type FactPreparer[K any] interface {
	PrepareFacts(fs []*Fact, known []K) (write func(context.Context) ([]bool, error), err error)
}

// IndexStore is the part of a [Store] the vector index (package index)
// reads and writes: the vectors, the graph's bottom layer (similar_to
// edges), the storage it owns for the rest of the graph, and the meta
// values that keep the canary's results.
type IndexStore interface {
	VectorStore
	EdgeStore
	MetaStore
	IndexGraphStore
}

// ImportStore is the part of a [Store] an import run (package importer)
// reads and writes beside what it writes through memory: external keys to
// resolve links to facts of earlier imports, commits to link to issues
// imported after them, and the edges.
type ImportStore interface {
	FactStore
	EdgeStore
}

// Unwrapper is a store that wraps another: a test double that counts or
// fails some calls, an adapter. Wrapping by embedding a [Store] keeps the
// required methods but hides every optional capability, since the
// wrapper's type has none of them; a wrapper with Unwrap keeps them, for
// [As] asks the wrapped store for what the wrapper lacks. A capability
// found that way runs on the wrapped store, past the wrapper: a wrapper
// that must see a call (CreateFact) and whose inner store has a capability
// making the same change (OwnChangeFeeder.CreateFactLogged) must
// implement that capability too, or not unwrap.
type Unwrapper interface {
	Unwrap() Store
}

// As returns s as capability T: s itself when it implements T, otherwise
// the first store down its chain of [Unwrapper]s that does. Callers ask
// for optional capabilities with As rather than a bare type assertion, so
// a wrapped store keeps them.
func As[T any](s any) (T, bool) {
	for s != nil {
		if c, ok := s.(T); ok {
			return c, true
		}
		u, ok := s.(Unwrapper)
		if !ok {
			break
		}
		inner := u.Unwrap()
		if inner == nil {
			break
		}
		s = inner
	}
	var zero T
	return zero, false
}

// Capability names one optional store capability and tells whether a
// store has it (through [As]).
type Capability struct {
	// Name is the interface's name in this package.
	Name string
	// Has reports whether s, or a store it wraps, implements it.
	Has func(s any) bool
}

func has[T any](s any) bool {
	_, ok := As[T](s)
	return ok
}

// Capabilities lists every optional capability declared above, in the
// order of this file: the conformance suite runs one subtest per entry
// against each backend, and a test fails when an interface declared here
// is not listed.
var Capabilities = []Capability{
	{"EntityRelinker", has[EntityRelinker]},
	{"ChangeFeeder", has[ChangeFeeder]},
	{"OwnChangeFeeder", has[OwnChangeFeeder]},
	{"HealthChecker", has[HealthChecker]},
	{"TermStatser", has[TermStatser]},
	{"WordFinder", has[WordFinder]},
	{"ChangeNotifier", has[ChangeNotifier]},
	{"FileChecker", has[FileChecker]},
	{"WALNoticer", has[WALNoticer]},
	{"NamespaceLister", has[NamespaceLister]},
	{"SimilarFactFinder", has[SimilarFactFinder]},
	{"RecentEntityFacts", has[RecentEntityFacts]},
	{"RecentEntitiesFacts", has[RecentEntitiesFacts]},
	{"FactBrowser", has[FactBrowser]},
	// K cannot be named here (see FactPreparer): the method is found by
	// name, and consumers assert FactPreparer[*text.Extraction].
	{"FactPreparer", hasMethod("PrepareFacts")},
}

// hasMethod reports whether s, or a store it wraps, has a method of that name.
func hasMethod(name string) func(s any) bool {
	return func(s any) bool {
		for s != nil {
			if reflect.ValueOf(s).MethodByName(name).IsValid() {
				return true
			}
			u, ok := s.(Unwrapper)
			if !ok {
				return false
			}
			inner := u.Unwrap()
			if inner == nil {
				return false
			}
			s = inner
		}
		return false
	}
}

// CapabilitiesOf returns the names of the optional capabilities s has, in
// the order of [Capabilities] (doctor, tests).
func CapabilitiesOf(s any) []string {
	var out []string
	for _, c := range Capabilities {
		if c.Has(s) {
			out = append(out, c.Name)
		}
	}
	return out
}

type readsForWriteKey struct{}

// ReadsForWrite marks ctx for the reads that decide a write the caller
// makes next in this process: Remember's duplicate and contradiction
// checks. A store may serve such reads from the connection its writes
// use. For SQLite that is the difference that counts: in WAL mode a
// connection drops its whole page cache when it next reads after another
// connection committed, so a read pool that answers the checks before
// every add reloads its pages every time, while the writer's cache
// survives its own commits. Such reads wait for a write in progress and
// hold back the next one while they run; recall and other reads that do
// not precede a write are better left unmarked. on=false removes the
// mark, for a write path handed a marked context.
func ReadsForWrite(ctx context.Context, on bool) context.Context {
	if on == IsReadForWrite(ctx) {
		return ctx
	}
	return context.WithValue(ctx, readsForWriteKey{}, on)
}

// IsReadForWrite reports whether ctx carries [ReadsForWrite]'s mark.
func IsReadForWrite(ctx context.Context) bool {
	on, _ := ctx.Value(readsForWriteKey{}).(bool)
	return on
}
