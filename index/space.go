package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// Mode is how a namespace's searches run ([holomem.IndexMode]).
type Mode = holomem.IndexMode

// Search modes.
const (
	// ModeExact scans every vector: the namespace is small, or has no built graph.
	ModeExact = holomem.IndexExact
	// ModeHNSW walks the graph and scans the delta exactly.
	ModeHNSW = holomem.IndexHNSW
	// ModeFallback scans every vector because the graph failed a check.
	ModeFallback = holomem.IndexFallback
)

const (
	// DefaultCanaryMin is the recall@10 below which the canary falls back.
	DefaultCanaryMin = 0.9
	// DefaultExactBelow is the vector count below which search scans exactly.
	DefaultExactBelow = 2000
	// canaryK is the depth the canary compares.
	canaryK = 10
	// autoCanarySample is the canary's sample after a build or an import.
	autoCanarySample = 50
	// int8From is the vector count from which exact search pre-selects
	// with int8 rows and rescores in float32: below it a float32 scan takes
	// under a few milliseconds anyway.
	int8From = 20_000
	// int8Rescore is the candidate multiplier r of the int8 pass (k*r
	// candidates are rescored in float32). BenchmarkSemanticSearch on 100k
	// clustered 384-d unit vectors measured recall@10 1.000 for r = 2, 4
	// and 8 (p50 1.6, 1.9 and 2.1 ms on 2 loaded cores, float32 scan 4.5
	// ms). r=4 keeps a margin for real embeddings, whose near-duplicate
	// clusters put more rows within int8 rounding of the cut-off, for about
	// 0.4 ms.
	int8Rescore = 4
	// rebuildInMemoryMax is the largest namespace whose corrupt graph is
	// rebuilt at load; larger ones scan exactly until `holomem graph build`.
	rebuildInMemoryMax = 50_000
	// hnswSearchEf is the lower bound of the beam width (ef = max(128, 2k)):
	// at 1M clustered vectors ef 64 gave recall@10 0.908 and ef 128 0.964
	// for 0.03 ms more (holomem bench ann --n 1000000).
	hnswSearchEf = 128
)

// space is one namespace's vectors: a contiguous matrix and an optional
// HNSW graph over (most of) them. Its fields are guarded by
// Index.mu; the matrix and the graph also lock themselves.
type space struct {
	mat *vec.Matrix
	// graph is nil until a graph is built or imported.
	graph *hnsw.Graph
	// stamp is the stored graph meta the graph came from (or replaced);
	// a refresh keeps the graph while the stored meta is unchanged.
	stamp string
	// delta holds the vectors that are in mat but not in graph (written
	// since the graph was built, by this or another process); searches scan
	// them exactly.
	delta map[int64][]float32
	// changes counts graph edits not persisted yet.
	changes int
	// fallback, when set, says why the graph must not be trusted; searches
	// scan exactly until the next build.
	fallback string
	// notes are remarks for doctor (corruption found, vectors skipped).
	notes []string
	// canary is the last canary run on this graph.
	canary *CanaryReport
	// building is set while BuildGraph works from a snapshot; touched
	// collects the ids written meanwhile.
	building bool
	touched  map[int64]bool
	// skipped counts stored vectors that could not be indexed.
	skipped int
}

func newSpace(dim int) *space {
	return &space{mat: vec.NewMatrix(dim), delta: map[int64][]float32{}}
}

// maybeInt8 turns on the int8 pre-selection once the space is large.
func (sp *space) maybeInt8(cfg config) {
	if !sp.mat.Int8() && sp.mat.Len() >= cfg.int8From {
		sp.mat.EnableInt8()
	}
}

// adopt takes over o's graph and its state (a refresh keeping the graph).
func (sp *space) adopt(o *space) {
	sp.graph, sp.stamp, sp.changes, sp.fallback, sp.canary = o.graph, o.stamp, o.changes, o.fallback, o.canary
	for _, n := range o.notes {
		if !slices.Contains(sp.notes, n) {
			sp.notes = append(sp.notes, n)
		}
	}
}

// reconcile recomputes the delta (vectors not in the graph) and drops
// graph nodes whose vectors are gone.
func (sp *space) reconcile() {
	sp.delta = map[int64][]float32{}
	if sp.graph == nil {
		return
	}
	inGraph := 0
	for _, id := range sp.mat.IDs() {
		if sp.graph.Has(id) {
			inGraph++
			continue
		}
		v, _ := sp.mat.Get(id)
		sp.delta[id] = v
	}
	if inGraph == sp.graph.Len() {
		return
	}
	entry, _ := sp.graph.Entry()
	for _, id := range graphNodes(sp.graph.Export(), entry) {
		if !sp.mat.Has(id) && sp.graph.Delete(id) {
			sp.changes++
		}
	}
}

// graphNodes returns the ids of links' bottom-layer lists plus the entry
// point, ascending: the nodes of a graph with two or more nodes.
func graphNodes(links []hnsw.Link, entry int64) []int64 {
	var ids []int64
	for _, l := range links {
		if l.Level == 0 {
			ids = append(ids, l.From)
		}
	}
	if !slices.Contains(ids, entry) {
		ids = append(ids, entry)
	}
	slices.Sort(ids)
	return ids
}

// upsertLocked stores v under id and keeps the graph in step: with
// incremental insert the vector joins the graph (a changed vector is
// deleted and added again), otherwise it waits in the delta. s.mu must be
// held for writing.
func (s *Index) upsertLocked(sp *space, id int64, v []float32) {
	if old, ok := sp.mat.Get(id); ok && slices.Equal(old, v) {
		return
	}
	if err := sp.mat.Set(id, v); err != nil {
		s.log.Warn("index vector", "id", id, "err", err)
		return
	}
	sp.maybeInt8(s.cfg)
	if sp.building {
		sp.touched[id] = true
	}
	if sp.graph == nil {
		return
	}
	if sp.graph.Delete(id) {
		sp.changes++
	}
	if s.cfg.incremental {
		err := sp.graph.Add(id, v)
		if err == nil {
			sp.changes++
			delete(sp.delta, id)
			return
		}
		s.log.Warn("add vector to graph", "id", id, "err", err)
	}
	sp.delta[id] = slices.Clone(v)
}

// removeLocked drops id from the matrix, the delta and the graph. s.mu
// must be held for writing.
func (s *Index) removeLocked(sp *space, id int64) {
	sp.mat.Delete(id)
	delete(sp.delta, id)
	if sp.building {
		sp.touched[id] = true
	}
	if sp.graph != nil && sp.graph.Delete(id) {
		sp.changes++
	}
}

// modeLocked says how a search of sp runs: exact below the threshold or
// without a built graph (a greedy walk over an empty graph returns garbage,
// docs/design.md §6), fallback when a check failed, hnsw otherwise.
func (s *Index) modeLocked(sp *space) Mode {
	switch {
	case sp.fallback != "":
		return ModeFallback
	case s.cfg.noGraph, sp.graph == nil, sp.mat.Len() < s.cfg.exactBelow, !graphBuilt(sp.graph):
		return ModeExact
	}
	return ModeHNSW
}

// graphBuilt reports whether g has at least as many links as nodes: an
// unbuilt graph (ids without links) must not be searched.
func graphBuilt(g *hnsw.Graph) bool {
	return g.Len() >= 2 && g.EdgeCount() >= g.Len()
}

// searchSpace answers a query on sp by the mode's path. s.mu must be held
// (or sp not yet published).
func (s *Index) searchSpace(sp *space, q []float32, k int) ([]vec.Result, Mode, error) {
	mode := s.modeLocked(sp)
	var res []vec.Result
	var err error
	if mode == ModeHNSW {
		res, err = s.annLocked(sp, q, k)
	} else {
		res, err = s.exactLocked(sp, q, k)
	}
	if err != nil {
		return nil, mode, fmt.Errorf("%w: %w", holomem.ErrInvalid, err)
	}
	return res, mode, nil
}

// exactLocked scans every vector of sp (int8 pre-selection on large spaces).
func (s *Index) exactLocked(sp *space, q []float32, k int) ([]vec.Result, error) {
	if sp.mat.Int8() {
		return sp.mat.SearchInt8(q, k, s.cfg.rescore, nil)
	}
	return sp.mat.Search(q, k, nil)
}

// annLocked walks the graph (ef = max(128, 2k)), rescores its hits with the
// matrix's vectors (the source of truth: a vector changed by another
// process keeps its old copy in a kept graph) and merges them with an exact
// scan of the delta, by score then id.
func (s *Index) annLocked(sp *space, q []float32, k int) ([]vec.Result, error) {
	if sp.graph == nil {
		return s.exactLocked(sp, q, k)
	}
	hits, err := sp.graph.Search(q, k, max(hnswSearchEf, 2*k))
	if err != nil {
		return nil, err
	}
	top := vec.NewTopK(k)
	for _, h := range hits {
		if v, ok := sp.mat.Get(h.ID); ok {
			top.Push(vec.Result{ID: h.ID, Score: vec.Dot(q, v)})
		}
	}
	for id, v := range sp.delta {
		top.Push(vec.Result{ID: id, Score: vec.Dot(q, v)})
	}
	return top.Sorted(), nil
}

// CanaryReport is the outcome of one recall canary: the graph's answers
// compared with an exact scan on a deterministic sample of stored vectors.
type CanaryReport struct {
	Namespace string `json:"namespace"`
	// Sample is the number of queries run; K the depth compared.
	Sample int `json:"sample"`
	K      int `json:"k"`
	// Recall is recall@K of the graph path (graph plus delta scan) against
	// an exact scan.
	Recall float64 `json:"recall"`
	// Min is the recall below which the space falls back to exact search.
	Min float64   `json:"min"`
	At  time.Time `json:"at"`
	// Tripped is true when Recall < Min: searches of the namespace scan
	// exactly until the next graph build.
	Tripped bool `json:"tripped"`
	// Reason says why the canary tripped or did not run.
	Reason string `json:"reason,omitempty"`
}

// canaryMeta is what the store keeps under "canary:<namespace>".
type canaryMeta struct {
	Recall float64   `json:"recall"`
	Sample int       `json:"sample"`
	At     time.Time `json:"at"`
}

func canaryMetaKey(ns string) string { return "canary:" + ns }

// Canary checks the namespace's graph: it queries sample stored vectors
// (every N/sample-th id, so the same data gives the same sample) with k=10
// through the graph path and through an exact scan, and computes recall@10
// with [hnsw.Recall]. The result is stored in meta ("canary:<namespace>").
// When recall is below Config.CanaryMin the namespace falls back to exact
// search until the next [Index.Build], and the report says why.
// sample <= 0 means 50. A namespace without a graph gets a report with
// Recall 1 and a Reason, and nothing changes.
func (s *Index) Canary(ctx context.Context, ns string, sample int) (*CanaryReport, error) {
	if s == nil {
		return nil, fmt.Errorf("canary: %w", holomem.ErrNoEmbedder)
	}
	if err := s.Load(ctx); err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	s.mu.RLock()
	sp := s.mu.spaces[ns]
	var rep *CanaryReport
	var err error
	if sp != nil {
		rep, err = s.canarySpace(ctx, ns, sp, sample)
	}
	s.mu.RUnlock()
	if sp == nil {
		return nil, fmt.Errorf("canary: namespace %q has no vectors of model %s: %w", ns, s.model, holomem.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	if err := s.recordCanary(ctx, rep); err != nil {
		return rep, err
	}
	s.mu.Lock()
	if s.mu.spaces[ns] == sp {
		s.applyCanaryLocked(sp, rep)
	}
	s.mu.Unlock()
	return rep, nil
}

// canarySpace runs the canary on sp without changing it. s.mu must be held
// (or sp not yet published).
func (s *Index) canarySpace(ctx context.Context, ns string, sp *space, sample int) (*CanaryReport, error) {
	if sample <= 0 {
		sample = autoCanarySample
	}
	rep := &CanaryReport{Namespace: ns, K: canaryK, Recall: 1, Min: s.cfg.canaryMin, At: s.now().UTC()}
	if sp.graph == nil || !graphBuilt(sp.graph) {
		rep.Reason = "no built graph: searches scan exactly"
		return rep, nil
	}
	ids := sp.mat.IDs()
	sample = min(sample, len(ids))
	if sample == 0 {
		rep.Reason = "no vectors"
		return rep, nil
	}
	step := len(ids) / sample
	ann := make([][]int64, 0, sample)
	exact := make([][]int64, 0, sample)
	for i := range sample {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q, _ := sp.mat.Get(ids[i*step])
		a, err := s.annLocked(sp, q, canaryK)
		if err != nil {
			return nil, err
		}
		e, err := sp.mat.Search(q, canaryK, nil)
		if err != nil {
			return nil, err
		}
		ann, exact = append(ann, resultIDs(a)), append(exact, resultIDs(e))
	}
	rep.Sample, rep.Recall = sample, hnsw.Recall(ann, exact)
	if rep.Recall < rep.Min {
		rep.Tripped = true
		rep.Reason = fmt.Sprintf("canary recall@%d %.3f < %.2f on %d queries: exact scan until `holomem graph build`", canaryK, rep.Recall, rep.Min, sample)
	}
	return rep, nil
}

// applyCanaryLocked records rep on sp and falls back when it tripped.
func (s *Index) applyCanaryLocked(sp *space, rep *CanaryReport) {
	sp.canary = rep
	if rep.Tripped && sp.fallback == "" {
		sp.fallback = rep.Reason
		s.log.Warn("hnsw recall canary tripped; exact search", "namespace", rep.Namespace, "recall", rep.Recall, "sample", rep.Sample)
	}
}

// recordCanary stores rep's figures in meta.
func (s *Index) recordCanary(ctx context.Context, rep *CanaryReport) error {
	if rep.Sample == 0 {
		return nil
	}
	b, err := json.Marshal(canaryMeta{Recall: rep.Recall, Sample: rep.Sample, At: rep.At})
	if err != nil {
		return err
	}
	if err := s.store.SetMeta(ctx, canaryMetaKey(rep.Namespace), string(b)); err != nil {
		return fmt.Errorf("store canary result: %w", err)
	}
	return nil
}

func resultIDs(rs []vec.Result) []int64 {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// Status describes one namespace's vector index ([holomem.IndexStatus]).
type Status = holomem.IndexStatus

// Status loads the index if needed and describes every namespace's index
// (ordered by namespace), for doctor. A nil index (a memory without an
// embedder) returns nil.
func (s *Index) Status(ctx context.Context) ([]Status, error) {
	if s == nil {
		return nil, nil
	}
	if err := s.Load(ctx); err != nil {
		return nil, fmt.Errorf("index status: %w", err)
	}
	s.mu.RLock()
	var out []Status
	for _, ns := range slices.Sorted(maps.Keys(s.mu.spaces)) {
		sp := s.mu.spaces[ns]
		st := Status{
			Namespace: ns, Model: s.model, Vectors: sp.mat.Len(), Int8: sp.mat.Int8(),
			Delta: len(sp.delta), Unpersisted: sp.changes, Mode: s.modeLocked(sp), Recall: -1,
			Notes: slices.Clone(sp.notes),
		}
		if sp.graph != nil {
			st.Nodes, st.Edges = sp.graph.Len(), sp.graph.EdgeCount()
		}
		if sp.canary != nil && sp.canary.Sample > 0 {
			st.Recall, st.CanaryAt = sp.canary.Recall, sp.canary.At
		}
		switch {
		case sp.fallback != "":
			st.Notes = append(st.Notes, sp.fallback)
		case sp.graph == nil && st.Vectors >= s.cfg.exactBelow && !s.cfg.noGraph:
			st.Notes = append(st.Notes, fmt.Sprintf("no HNSW graph for %d vectors: searches scan exactly; run `holomem graph build`", st.Vectors))
		case sp.graph != nil && st.Delta > max(1000, st.Vectors/10):
			st.Notes = append(st.Notes, fmt.Sprintf("%d vectors are not in the graph and are scanned exactly; run `holomem graph build`", st.Delta))
		}
		out = append(out, st)
	}
	s.mu.RUnlock()
	for i := range out {
		if out[i].Recall >= 0 {
			continue
		}
		raw, err := s.store.Meta(ctx, canaryMetaKey(out[i].Namespace))
		if errors.Is(err, holomem.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("index status: %w", err)
		}
		var cm canaryMeta
		if json.Unmarshal([]byte(raw), &cm) == nil && cm.Sample > 0 {
			out[i].Recall, out[i].CanaryAt = cm.Recall, cm.At
		}
	}
	return out, nil
}
