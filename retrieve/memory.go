package retrieve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/text"
)

// Options configure a [Memory]. The zero value is usable: no embedder,
// default weights, a 90-day half-life.
type Options struct {
	// Embedder computes sentence vectors; nil runs recall without the
	// semantic channel (and says so in every result).
	Embedder holomem.Embedder
	// Weights are the channel weights; zero means holomem.DefaultWeights.
	Weights holomem.Weights
	// HalfLife is the age at which the decaying part of a fact's score
	// halves, counted from its last content change, for categories without
	// their own entry in HalfLives. Zero means 90 days; negative disables
	// decay for every category, history included, unless HalfLives is
	// given.
	HalfLife time.Duration
	// HalfLives override HalfLife per category; a negative value disables
	// decay for the category. Nil means DefaultHalfLives (history such as
	// commits, issues, PRs and conversation turns: 3 years), or none when
	// HalfLife is negative: "no decay" must not leave history decaying.
	HalfLives map[string]time.Duration
	// DecayFloor is the share of a fact's score that never decays (0..1):
	// decay = floor + (1 - floor) x 0.5^(age/half-life). Zero means 0.7;
	// negative means no floor (the pre-issue-9 behaviour).
	DecayFloor float64
	// DisableHRR turns the hrr channel off (its weight is redistributed).
	DisableHRR bool
	// WholeFactBM25 scores a long fact's full text by BM25 over its whole
	// content. By default a fact longer than one passage (about 300 tokens,
	// text.PassageRunes) is scored by its best passage, so a long document
	// that mentions the query's words here and there does not outrank the
	// short fact that answers, and its hit says which passage matched.
	WholeFactBM25 bool
	// NearDuplicate is the token Jaccard (or cosine, with a model) at or
	// above which Remember reports an existing fact as a near-duplicate.
	// Zero means 0.7 (Jaccard) and 0.92 (cosine).
	NearDuplicate float64
	// ExactBelow is the number of vectors below which semantic search scans
	// exactly instead of using the HNSW graph. Zero means 2000.
	ExactBelow int
	// DisableGraph never loads or uses HNSW graphs: every semantic search
	// scans exactly (one-shot CLI commands skip reading the graph edges).
	// index.Index.Build still builds and persists them.
	DisableGraph bool
	// DisableGraphIncremental stops writes from adding their vectors to a
	// loaded graph; they wait in the delta, which is scanned exactly, until
	// the next graph build. By default (false) inserts are incremental.
	DisableGraphIncremental bool
	// CanaryMin is the recall@10 below which the recall canary makes a
	// namespace fall back to exact search. Zero means 0.9.
	CanaryMin float64
	// GraphM is the HNSW neighbour count M (the bottom layer keeps 2M).
	// Zero means hnsw.DefaultM (16).
	GraphM int
	// AnchorRoot is the directory anchors are confined to and resolved
	// against; "" means FindAnchorRoot's answer, else anchors are not
	// checked (recall never reads a file outside an anchor root).
	AnchorRoot string
	// FindAnchorRoot, when set, is called once, the first time an anchor
	// is checked (the CLI asks git for the project root only then, so
	// commands without anchored facts spawn no process).
	FindAnchorRoot func() string
	// RetrievalFlush, when positive, takes retrieval counting off recall's
	// path: counts are queued and written in one batch this often and on
	// Close (long-running processes: serve, mcp). Zero writes them at once.
	// Either way a failed count write never fails a recall.
	RetrievalFlush time.Duration
	// LiveIndex keeps an in-memory text index and a cache of candidate
	// rows, kept current by the store's change feed (see live), when the
	// store has one ([holomem.ChangeFeeder]): recall and write-time hygiene
	// then run no full-text SQL. For long-running processes (serve, mcp);
	// [Memory.Warm] loads it, and until then recall uses the store's search.
	LiveIndex bool
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
	// Logger receives warnings about degraded modes; nil discards them.
	Logger *slog.Logger
}

const (
	defaultHalfLife     = 90 * 24 * time.Hour
	defaultDecayFloor   = 0.7
	defaultNearJaccard  = 0.7
	defaultNearCosine   = 0.92
	candidateMultiplier = 5
	minCandidates       = 50
	noEmbedderNote      = "no embedding model: recall runs on fts, jaccard and hrr; run `holomem model pull` to add the semantic channel"
	embedFailedNoteFmt  = "semantic channel skipped: %v"
)

// Memory implements [holomem.Memory]. It is safe for concurrent use.
type Memory struct {
	store holomem.Store
	emb   holomem.Embedder
	opts  Options
	log   *slog.Logger

	sem *index.Index // nil without an embedder
	hrr *hrrCache
	// words caches hygiene candidates' words (see wordCache).
	words wordCache

	anchors *anchor.Checker

	counts retrievals

	// terms caches candidates' stems for BM25 re-scoring and Jaccard.
	terms termCache

	// live is the in-memory text index and row cache (nil unless
	// Options.LiveIndex and the store has a change feed).
	live *live

	// sync follows the change feed for the vectors (see SyncChanges).
	sync vecSync

	mu struct {
		sync.Mutex
		closed bool
		// aliases caches each namespace's alias map (alias key -> entity
		// key), loaded once and dropped when a write may add aliases or
		// after aliasTTL (another process may have added some).
		aliases map[string]aliasCache
	}
}

type aliasCache struct {
	m  map[string]string
	at time.Time
}

// aliasTTL bounds how long a long-running process trusts its alias cache.
const aliasTTL = 30 * time.Second

var _ holomem.Memory = (*Memory)(nil)

// New returns a Memory over store. It does not take ownership of store.
func New(store holomem.Store, opts Options) (*Memory, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: retrieve.New needs a store", holomem.ErrInvalid)
	}
	if len(opts.Weights) == 0 {
		opts.Weights = holomem.DefaultWeights()
	}
	if err := opts.Weights.Validate(); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	if opts.HalfLife == 0 {
		opts.HalfLife = defaultHalfLife
	}
	switch {
	case opts.HalfLives == nil && opts.HalfLife < 0:
		opts.HalfLives = map[string]time.Duration{}
	case opts.HalfLives == nil:
		opts.HalfLives = DefaultHalfLives()
	}
	switch {
	case opts.DecayFloor == 0:
		opts.DecayFloor = defaultDecayFloor
	case opts.DecayFloor < 0:
		opts.DecayFloor = 0
	case opts.DecayFloor > 1 || math.IsNaN(opts.DecayFloor):
		return nil, fmt.Errorf("%w: decay floor %v is outside 0..1", holomem.ErrInvalid, opts.DecayFloor)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Memory{store: store, emb: opts.Embedder, opts: opts, log: opts.Logger, hrr: newHRRCache(store),
		anchors: anchor.NewChecker(opts.AnchorRoot, opts.FindAnchorRoot)}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.emb != nil {
		m.sem = index.New(store, m.emb.ModelID(), m.emb.Dim(), index.Config{
			ExactBelow: opts.ExactBelow, NoGraph: opts.DisableGraph, NoIncremental: opts.DisableGraphIncremental,
			CanaryMin: opts.CanaryMin, GraphM: opts.GraphM, Now: opts.Now,
		}, m.log)
	}
	if feed, ok := holomem.As[holomem.ChangeFeeder](store); ok && opts.LiveIndex {
		m.live = &live{feed: feed, store: store, log: m.log, withHRR: !opts.DisableHRR}
		m.live.ownFeed, _ = feed.(holomem.OwnChangeFeeder)
	}
	m.sync.feed, _ = holomem.As[holomem.ChangeFeeder](store)
	if opts.RetrievalFlush > 0 {
		m.startFlusher()
	}
	return m, nil
}

// Refresh reloads the in-memory vector index from the store. It is a
// forced reload that reads every vector again, so facts written by other
// processes (a CLI `add` next to a running server) become searchable; a
// long-running server calls it periodically (its TTL bounds staleness).
func (m *Memory) Refresh(ctx context.Context) error {
	m.hrr.reset()
	if m.sem == nil {
		return nil
	}
	return m.sem.Refresh(ctx)
}

// Warm loads what the first query would otherwise wait for: the text
// index ([Options.LiveIndex]), the vector index and the model's weights
// (when the embedder can preload).
func (m *Memory) Warm(ctx context.Context) error {
	m.primeSync(ctx)
	if err := m.WarmText(ctx); err != nil {
		return err
	}
	if m.sem == nil {
		return nil
	}
	if l, ok := m.emb.(interface{ Load() error }); ok {
		if err := l.Load(); err != nil {
			return fmt.Errorf("load model: %w", err)
		}
	}
	return m.sem.Load(ctx)
}

// WarmText loads the in-memory text index when [Options.LiveIndex] asked
// for one (and the store has a change feed); otherwise it does nothing.
func (m *Memory) WarmText(ctx context.Context) error {
	if m.live == nil {
		return nil
	}
	return m.live.load(ctx, nil)
}

// LiveText reports whether recall and hygiene use the in-memory text index
// now (it is loaded and following the store's change feed).
func (m *Memory) LiveText() bool { return m.live != nil && m.live.ready.Load() }

// Index returns the vector index, nil without an embedder: build its HNSW
// graph, run its recall canary or read its status. Its methods accept a nil
// index (Build and Canary then return ErrNoEmbedder, Status nothing).
func (m *Memory) Index() *index.Index { return m.sem }

// Store returns the store the memory writes through.
func (m *Memory) Store() holomem.Store { return m.store }

// Embedder returns the configured embedder, or nil.
func (m *Memory) Embedder() holomem.Embedder { return m.emb }

// Channels lists the channels recall runs with this configuration.
func (m *Memory) Channels() []holomem.Channel {
	var ch []holomem.Channel
	for _, c := range holomem.Channels() {
		if _, ok := scorerOf(c.Name); ok && !c.Occasional && !(c.NeedsHRR && m.opts.DisableHRR) && !(c.NeedsModel && m.emb == nil) {
			ch = append(ch, c.Name)
		}
	}
	return ch
}

// Close writes queued retrieval counts, persists in-memory graph edits
// when there are many (see [index.Index.Persist]) and releases the
// in-memory indexes. It does not
// close the store.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.closed {
		return nil
	}
	m.mu.closed = true
	var err error
	if ferr := m.stopFlusher(); ferr != nil {
		err = fmt.Errorf("close: %w", ferr)
	}
	if m.sem != nil {
		if _, perr := m.sem.Persist(context.Background(), index.PersistAtCloseMin); perr != nil {
			err = fmt.Errorf("close: %w", perr)
		}
		m.sem.Reset()
	}
	return err
}

// encodeHRR returns the compact holographic vector of content: its distinct
// tokens bound to ROLE_CONTENT and its entities (aliases resolved to the
// canonical entity when the store knows them) bound to ROLE_ENTITY.
func (m *Memory) encodeHRR(ctx context.Context, namespace, content string) []byte {
	if m.opts.DisableHRR {
		return nil
	}
	return hrr.EncodeFactCompact(text.Tokens(content), m.entityKeys(ctx, namespace, content))
}

// entityKeys extracts entities from s and resolves each to its canonical
// key. Rare lower-case words that the store links only once they recur are
// left out: every rare word in a fact's vector would dilute its entities
// (Probe and Reason read the store's links for those). Capitalised
// sentence openers ("Wow", "Previously"), which the store does not link,
// stay: the vector ranks by them as by words, and without them the hybrid
// lost 0.014 recall@10 on the LoCoMo development split.
func (m *Memory) entityKeys(ctx context.Context, namespace, s string) []string {
	return m.entityKeysOf(ctx, namespace, text.Extract(s, nil))
}

// entityKeysOf is entityKeys given text.Extract(s, nil).
func (m *Memory) entityKeysOf(ctx context.Context, namespace string, ents []text.Entity) []string {
	keys := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.Recurring && e.Kind == text.EntityTerm {
			continue
		}
		keys = append(keys, m.resolveEntity(ctx, namespace, e.Name))
	}
	return keys
}

// resolveEntity returns the key of the entity name resolves to (through
// aliases), or the name's own key when it is no alias.
func (m *Memory) resolveEntity(ctx context.Context, namespace, name string) string {
	k := text.EntityKey(name)
	if canon, ok := m.aliasMap(ctx, namespace)[k]; ok {
		return canon
	}
	return k
}

// aliasMap returns the namespace's alias map from the cache, loading it
// when missing or older than aliasTTL. A failed load resolves nothing (a
// name then stands for itself) rather than failing the caller.
func (m *Memory) aliasMap(ctx context.Context, namespace string) map[string]string {
	m.mu.Lock()
	c, ok := m.mu.aliases[namespace]
	m.mu.Unlock()
	if ok && m.opts.Now().Sub(c.at) < aliasTTL {
		return c.m
	}
	raw, err := m.store.EntityAliases(ctx, namespace)
	if err != nil {
		m.log.Warn("load entity aliases", "namespace", namespace, "err", err)
		return nil
	}
	am := make(map[string]string, len(raw))
	for k, name := range raw {
		am[k] = text.EntityKey(name)
	}
	m.mu.Lock()
	if m.mu.aliases == nil {
		m.mu.aliases = map[string]aliasCache{}
	}
	m.mu.aliases[namespace] = aliasCache{m: am, at: m.opts.Now()}
	m.mu.Unlock()
	return am
}

// forgetAliases drops the cached alias map of a namespace after a write
// whose content declares aliases ("X aka Y").
func (m *Memory) forgetAliases(namespace, content string) {
	if declaresAlias(content) {
		m.mu.Lock()
		delete(m.mu.aliases, namespace)
		m.mu.Unlock()
	}
}

// declaresAlias reports whether content declares an alias ("X aka Y").
func declaresAlias(content string) bool {
	if lc := strings.ToLower(content); !strings.Contains(lc, "aka") && !strings.Contains(lc, "a.k.a") {
		return false // no alias declared: cheaper than extracting entities
	}
	for _, e := range text.Entities(content) {
		if len(e.Aliases) > 0 {
			return true
		}
	}
	return false
}

// Remember stores f with its derived data and reports near-duplicates and
// likely contradictions found before the write.
func (m *Memory) Remember(ctx context.Context, f *holomem.Fact) (*holomem.Remembered, error) {
	f.Normalize()
	if err := allow(ctx, f.Namespace, true); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var qv []float32
	if m.emb != nil && len(f.Embedding) == 0 {
		v, err := m.embedOne(ctx, f.Content)
		if err != nil {
			m.log.Warn("embed on remember", "err", err)
		} else {
			qv = v
		}
	}
	// The words and entities hygiene and the HRR vector both read.
	toks := text.Tokens(f.Content)
	ents, extracted := text.EntitiesExtract(f.Content)
	// The checks and the entity keys are read where the write goes next
	// (see holomem.ReadsForWrite).
	rctx := holomem.ReadsForWrite(ctx, true)
	dups, contras, refines, err := m.hygiene(rctx, f, toks, ents, qv)
	if err != nil {
		return nil, fmt.Errorf("check duplicates: %w", err)
	}
	if len(f.HRR) == 0 && !m.opts.DisableHRR {
		f.HRR = hrr.EncodeFactCompact(toks, m.entityKeysOf(rctx, f.Namespace, extracted))
	}
	// The vector goes into the fact's row: one write transaction per add.
	// One the store would refuse is left to storeVector, which logs it.
	if qv != nil && rowcodec.CheckVector(qv) == nil {
		f.Embedding, f.ModelID = qv, m.emb.ModelID()
	}
	created, err := m.createFact(ctx, f)
	if err != nil {
		return nil, err
	}
	m.forgetAliases(f.Namespace, f.Content)
	if created {
		m.hrr.put(f.Namespace, f.ID, f.HRR)
	}
	out := &holomem.Remembered{Fact: f, Created: created, Risks: text.InstructionRisks(f.Content)}
	if !created {
		return out, nil
	}
	out.NearDuplicates, out.Contradictions, out.Refinements = dropID(dups, f.ID), dropID(contras, f.ID), dropID(refines, f.ID)
	if m.sem != nil && len(f.Embedding) == m.emb.Dim() && f.ModelID == m.emb.ModelID() {
		m.sem.Upsert(f.Namespace, f.ID, f.Embedding) // stored with the row
	} else if err := m.storeVector(ctx, f, qv); err != nil {
		m.log.Warn("store embedding", "id", f.ID, "err", err)
	}
	return out, nil
}

// createFact stores f. With a loaded text index over a store that tells
// its own writes apart, the index takes the new fact from memory when it
// next syncs instead of reading it back (see live.noteOwn).
func (m *Memory) createFact(ctx context.Context, f *holomem.Fact) (bool, error) {
	l := m.live
	if l == nil {
		return m.store.CreateFact(ctx, f)
	}
	epoch, ok := l.ownEpoch()
	if !ok {
		return m.store.CreateFact(ctx, f)
	}
	created, c, err := l.ownFeed.CreateFactLogged(ctx, f)
	if err == nil && created {
		l.noteOwn(epoch, c, f)
	}
	return created, err
}

// storeVector persists and indexes f's vector: the one the caller supplied
// (imports), or qv computed by Remember.
func (m *Memory) storeVector(ctx context.Context, f *holomem.Fact, qv []float32) error {
	if m.sem == nil {
		return nil
	}
	v := qv
	if len(f.Embedding) > 0 && f.ModelID == m.emb.ModelID() {
		v = f.Embedding
	}
	if v == nil {
		return nil
	}
	if err := m.store.SetEmbeddings(ctx, m.emb.ModelID(), map[int64][]float32{f.ID: v}); err != nil {
		return err
	}
	f.ModelID, f.Embedding = m.emb.ModelID(), v
	m.sem.Upsert(f.Namespace, f.ID, v)
	return nil
}

func dropID(hits []holomem.Hit, id int64) []holomem.Hit {
	out := hits[:0]
	for _, h := range hits {
		if h.Fact.ID != id {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Update changes a fact; a content change re-derives the HRR vector and the
// embedding.
func (m *Memory) Update(ctx context.Context, id int64, upd holomem.FactUpdate) (*holomem.Fact, error) {
	if err := m.allowFacts(ctx, id); err != nil {
		return nil, err
	}
	if err := upd.Validate(); err != nil {
		return nil, err
	}
	var old *holomem.Fact
	if upd.Content != nil {
		var err error
		if old, err = m.store.FindFactByID(ctx, id); err != nil {
			return nil, err
		}
		if upd.HRR == nil {
			upd.HRR = m.encodeHRR(ctx, old.Namespace, *upd.Content)
		}
	}
	f, err := m.store.UpdateFact(ctx, id, upd)
	if err != nil {
		return nil, err
	}
	if upd.Content != nil {
		m.forgetAliases(f.Namespace, f.Content)
		m.hrr.put(f.Namespace, f.ID, upd.HRR)
	}
	if old != nil && old.Content != f.Content && m.emb != nil {
		v, err := m.embedOne(ctx, f.Content)
		if err != nil {
			m.log.Warn("embed on update", "id", id, "err", err)
			m.sem.Remove(f.Namespace, id)
			return f, nil
		}
		if err := m.storeVector(ctx, f, v); err != nil {
			m.log.Warn("store embedding", "id", id, "err", err)
		}
	}
	return f, nil
}

// Forget deletes a fact and drops it from the in-memory indexes.
func (m *Memory) Forget(ctx context.Context, id int64) error {
	if err := m.allowFacts(ctx, id); err != nil {
		return err
	}
	f, err := m.store.FindFactByID(ctx, id)
	if err != nil {
		return err
	}
	if err := m.store.DeleteFact(ctx, id); err != nil {
		return err
	}
	m.hrr.drop(f.Namespace, id)
	if m.sem != nil {
		m.sem.Remove(f.Namespace, id)
	}
	return nil
}

// Feedback records a helpful or unhelpful vote.
func (m *Memory) Feedback(ctx context.Context, id int64, helpful bool) (*holomem.Fact, error) {
	if err := m.allowFacts(ctx, id); err != nil {
		return nil, err
	}
	return m.store.RecordFeedback(ctx, id, helpful)
}

// Supersede records that newer replaces older; older leaves recall.
func (m *Memory) Supersede(ctx context.Context, older, newer int64) error {
	if err := m.allowFacts(ctx, older, newer); err != nil {
		return err
	}
	if older == newer {
		return fmt.Errorf("supersede %d with %d: %w: a fact cannot replace itself", older, newer, holomem.ErrInvalid)
	}
	if err := m.store.Supersede(ctx, older, newer); err != nil {
		return err
	}
	if f, err := m.store.FindFactByID(ctx, older); err == nil {
		m.hrr.drop(f.Namespace, older)
	}
	return nil
}

func (m *Memory) embedOne(ctx context.Context, s string) ([]float32, error) {
	vs, err := m.emb.Embed(ctx, []string{stripForEmbedding(s)})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 || len(vs[0]) != m.emb.Dim() {
		return nil, fmt.Errorf("embedder returned %d vectors for 1 text", len(vs))
	}
	return vs[0], nil
}

// decay is a bounded recency prior: floor + (1 - floor) x
// 0.5^(age/half-life), age counted from the last content change, the
// half-life chosen by the fact's category. The floor keeps old facts
// findable: relevance decides among them, recency only breaks near-ties,
// so a year-old commit whose subject matches the query still outranks a
// fresh unrelated note. Measured with `holomem eval` on LoCoMo stored with
// the turns' own dates: without a floor recall@10 fell from 0.545 to 0.331
// (see docs/evaluation.md).

func (m *Memory) decay(f *holomem.Fact) float64 {
	if f.UpdatedAt.IsZero() {
		return 1
	}
	return m.decayAge(f, m.opts.Now().Sub(f.UpdatedAt))
}

// decayAge is decay for a fact of the given age. Recall passes another age
// for the facts of the period a question names (see scoreTime): the
// question asks for that time, so they are not older for it.
func (m *Memory) decayAge(f *holomem.Fact, age time.Duration) float64 {
	hl, ok := m.opts.HalfLives[f.Category]
	if !ok {
		hl = m.opts.HalfLife
	}
	if hl < 0 || age <= 0 {
		return 1
	}
	fl := m.opts.DecayFloor
	return fl + (1-fl)*math.Pow(0.5, float64(age)/float64(hl))
}

// DefaultHalfLives are the per-category half-lives recall uses unless
// Options.HalfLives says otherwise: records of what happened (commits,
// issues, PRs, changelog entries, conversation turns, events) age slowly,
// since their age does not make them wrong; everything else uses
// Options.HalfLife.
func DefaultHalfLives() map[string]time.Duration {
	const history = 3 * 365 * 24 * time.Hour
	return map[string]time.Duration{
		"commit": history, "issue": history, "pr": history, "changelog": history,
		"conversation": history, "chat": history, "event": history, "history": history,
	}
}

// isNotFound reports whether err is holomem.ErrNotFound.
func isNotFound(err error) bool { return errors.Is(err, holomem.ErrNotFound) }

// stripForEmbedding is the text that gets embedded: URLs, attachment markup
// and file paths removed (the raw text still goes to full-text search).
func stripForEmbedding(s string) string {
	if t := text.StripForEmbedding(s); t != "" {
		return t
	}
	return s
}
