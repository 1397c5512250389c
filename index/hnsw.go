package index

import (
	"cmp"
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

const (
	// edgeBatch is how many edges one CreateEdges transaction writes.
	edgeBatch = 5_000
	// PersistAtCloseMin is the number of unpersisted graph edits from which
	// Close rewrites a namespace's edges (see [Index.Persist]).
	PersistAtCloseMin = 1_000
	// Progress phases of Build.
	phaseGraphBuild   = "graph build"
	phaseGraphPersist = "graph persist"
)

// graphMeta is the JSON description stored with a namespace's graph
// ([holomem.IndexGraphStore.SaveIndexGraph]). Nodes and Edges (every
// layer's links)
// let a load tell a complete graph from a damaged one; Shared lists the
// bottom-layer links stored by a similar_to edge of another origin (the
// pair already had one, and the build does not overwrite it).
type graphMeta struct {
	Model   string     `json:"model"`
	Dim     int        `json:"dim"`
	Entry   int64      `json:"entry"`
	M       int        `json:"m"`
	Nodes   int        `json:"nodes"`
	Edges   int        `json:"edges"`
	BuiltAt time.Time  `json:"built_at"`
	Shared  [][2]int64 `json:"shared,omitempty"`
}

// BuildReport is what [Index.Build] did, one entry per namespace.
type BuildReport struct {
	Namespaces []NamespaceBuild `json:"namespaces"`
}

// NamespaceBuild reports the graph build of one namespace.
type NamespaceBuild struct {
	Namespace string `json:"namespace"`
	// Vectors is the number of vectors the graph was built from.
	Vectors int `json:"vectors"`
	// Edges is the number of links persisted (all layers); MaxLevel the top layer.
	Edges    int `json:"edges"`
	MaxLevel int `json:"max_level"`
	// Skipped says why no graph was built (fewer than 2 vectors).
	Skipped string `json:"skipped,omitempty"`
	// Canary is the recall canary run on the new graph.
	Canary *CanaryReport `json:"canary,omitempty"`
	Took   time.Duration `json:"took_ns"`
}

// Build builds the HNSW graph of every namespace with at least two
// vectors of the current model, from scratch (workers = min(2, NumCPU)),
// and persists it: the namespace's old graph is deleted, the bottom layer
// is written as similar_to edges with origin "hnsw" (weight = the cosine,
// clamped at 0) in transactions of 5,000 edges, and then the upper layers'
// links and the description of the graph (model, entry point, M, node and
// edge counts, time) go to the index's own storage
// ([holomem.IndexGraphStore]) in one transaction. The description is
// deleted first and written last, so an interrupted build leaves no graph
// that a load would trust; rerunning rebuilds (the build is idempotent). Each new graph
// replaces the in-memory one and gets a recall canary (sample 50).
// progress (may be nil) gets phases "graph build" and "graph persist".
func (s *Index) Build(ctx context.Context, progress holomem.Progress) (*BuildReport, error) {
	if s == nil {
		return nil, fmt.Errorf("build graph: %w", holomem.ErrNoEmbedder)
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.RLock()
	loaded := s.mu.loaded
	s.mu.RUnlock()
	if !loaded {
		if err := s.refreshLocked(ctx); err != nil {
			return nil, fmt.Errorf("build graph: %w", err)
		}
	}
	s.mu.RLock()
	names := slices.Sorted(maps.Keys(s.mu.spaces))
	s.mu.RUnlock()
	rep := &BuildReport{}
	for _, ns := range names {
		r, err := s.buildNamespace(ctx, ns, progress)
		if err != nil {
			return rep, fmt.Errorf("build graph of %q: %w", ns, err)
		}
		rep.Namespaces = append(rep.Namespaces, *r)
	}
	return rep, nil
}

// buildNamespace builds, persists and installs the graph of ns.
// s.refreshMu must be held.
func (s *Index) buildNamespace(ctx context.Context, ns string, progress holomem.Progress) (*NamespaceBuild, error) {
	start := time.Now()
	s.mu.Lock()
	sp := s.mu.spaces[ns]
	ids, vecs := sp.mat.Snapshot()
	sp.building, sp.touched = true, map[int64]bool{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		sp.building, sp.touched = false, nil
		s.mu.Unlock()
	}()
	r := &NamespaceBuild{Namespace: ns, Vectors: len(ids)}
	if len(ids) < 2 {
		r.Skipped = "fewer than 2 vectors"
		if err := s.clearPersisted(ctx, ns); err != nil {
			return nil, err
		}
		s.mu.Lock()
		sp.graph, sp.stamp, sp.changes, sp.fallback = nil, "", 0, ""
		sp.reconcile()
		s.mu.Unlock()
		return r, nil
	}
	g, links, err := s.buildCanonical(ctx, ns, ids, vecs, progress)
	if err != nil {
		return nil, err
	}
	entry, _ := g.Entry()
	raw, edges, err := s.persist(ctx, ns, g, entry, links, ids, vecs, progress)
	if err != nil {
		return nil, err
	}
	r.Edges, r.MaxLevel = edges, g.MaxLevel()
	s.mu.Lock()
	sp.graph, sp.stamp, sp.changes, sp.fallback, sp.canary = g, raw, 0, "", nil
	sp.notes = slices.DeleteFunc(sp.notes, isGraphNote)
	// Vectors written during the build: the graph holds their old version
	// (or none); re-add them so the graph matches the matrix.
	for _, id := range slices.Sorted(maps.Keys(sp.touched)) {
		if g.Delete(id) {
			sp.changes++
		}
		if v, ok := sp.mat.Get(id); ok && s.cfg.incremental {
			if g.Add(id, v) == nil {
				sp.changes++
			}
		}
	}
	sp.reconcile()
	s.mu.Unlock()
	c, err := s.Canary(ctx, ns, autoCanarySample)
	if err != nil {
		return nil, err
	}
	r.Canary, r.Took = c, time.Since(start)
	return r, nil
}

// isGraphNote reports whether a space note is about the graph (and is
// cleared by a successful build).
func isGraphNote(n string) bool {
	return len(n) > 8 && n[:8] == "corrupt:"
}

// buildCanonical builds a graph over ids/vecs and returns it in the form a
// load reproduces: neighbour lists sorted by id (the order edges come back
// from the store), imported into a fresh graph. The same input always gives
// the same graph.
func (s *Index) buildCanonical(ctx context.Context, ns string, ids []int64, vecs [][]float32, progress holomem.Progress) (*hnsw.Graph, []hnsw.Link, error) {
	cfg := hnsw.Config{M: s.cfg.graphM}
	if progress != nil {
		cfg.Progress = func(done, total int) { progress(phaseGraphBuild+" "+ns, done, total) }
	}
	b, err := hnsw.New(s.dim, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := b.Build(ctx, ids, vecs, s.cfg.workers); err != nil {
		return nil, nil, err
	}
	links := b.Export()
	for i := range links {
		slices.Sort(links[i].To)
	}
	entry, _ := b.Entry()
	cfg.Progress = nil
	g, err := hnsw.New(s.dim, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := g.Import(entry, links, ids, vecs); err != nil {
		return nil, nil, fmt.Errorf("re-import built graph: %w", err)
	}
	return g, links, nil
}

// clearPersisted removes the persisted graph of ns: its description and
// upper layers first, so a crash never leaves a description of missing
// edges, then its similar_to bottom layer.
func (s *Index) clearPersisted(ctx context.Context, ns string) error {
	if err := s.store.DeleteIndexGraph(ctx, ns); err != nil {
		return fmt.Errorf("clear graph: %w", err)
	}
	if _, err := s.store.DeleteEdges(ctx, holomem.EdgeFilter{Namespace: ns, Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginHNSW}); err != nil {
		return fmt.Errorf("delete graph edges: %w", err)
	}
	return nil
}

// persist replaces the stored graph of ns by links (ids/vecs give the
// vectors for the edge weights) and returns the new meta value and the
// number of links stored.
func (s *Index) persist(ctx context.Context, ns string, g *hnsw.Graph, entry int64, links []hnsw.Link, ids []int64, vecs [][]float32, progress holomem.Progress) (string, int, error) {
	if err := s.clearPersisted(ctx, ns); err != nil {
		return "", 0, err
	}
	byID := make(map[int64][]float32, len(ids))
	for i, id := range ids {
		byID[id] = vecs[i]
	}
	// A similar_to edge some other source made keeps its weight and origin;
	// the graph's link is recorded in the meta instead.
	others, err := s.store.FindEdges(ctx, holomem.EdgeFilter{Namespace: ns, Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}})
	if err != nil {
		return "", 0, fmt.Errorf("read similar_to edges: %w", err)
	}
	taken := make(map[[2]int64]bool, len(others))
	for _, e := range others {
		taken[[2]int64{e.From, e.To}] = true
	}
	total := 0
	for _, l := range links {
		total += len(l.To)
	}
	meta := graphMeta{Model: s.model, Dim: s.dim, Entry: entry, M: g.Config().M, Nodes: len(graphNodes(links, entry)), BuiltAt: s.now().UTC()}
	now := s.now()
	batch := make([]*holomem.Edge, 0, edgeBatch)
	done := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := s.store.CreateEdges(ctx, batch); err != nil {
			return fmt.Errorf("store graph edges: %w", err)
		}
		done += len(batch)
		if progress != nil {
			progress(phaseGraphPersist+" "+ns, done, total)
		}
		batch = batch[:0]
		return nil
	}
	var upper []holomem.IndexLink
	for _, l := range links {
		if l.Level > 0 {
			for _, to := range l.To {
				upper = append(upper, holomem.IndexLink{Level: l.Level, From: l.From, To: to})
			}
			meta.Edges += len(l.To)
			continue
		}
		from, ok := byID[l.From]
		for _, to := range l.To {
			meta.Edges++
			if taken[[2]int64{l.From, to}] {
				meta.Shared = append(meta.Shared, [2]int64{l.From, to})
				continue
			}
			w := 0.0
			if tv, ok2 := byID[to]; ok && ok2 {
				w = max(0, float64(vec.Cosine(from, tv)))
			}
			batch = append(batch, &holomem.Edge{From: l.From, To: to, Kind: holomem.EdgeSimilar, Weight: w, Origin: holomem.OriginHNSW, CreatedAt: now})
			if len(batch) == edgeBatch {
				if err := flush(); err != nil {
					return "", 0, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return "", 0, err
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return "", 0, err
	}
	if err := s.store.SaveIndexGraph(ctx, ns, string(b), upper); err != nil {
		return "", 0, fmt.Errorf("store graph: %w", err)
	}
	if progress != nil {
		progress(phaseGraphPersist+" "+ns, total, total)
	}
	return string(b), meta.Edges, nil
}

// importPersisted reads the stored graph of ns described by raw and
// imports it over sp's vectors. Every inconsistency (unreadable meta,
// another model or dimension, edge or node counts that differ from the
// meta, links the hnsw package rejects) is returned wrapping
// errGraphInvalid or hnsw.ErrCorrupt.
func (s *Index) importPersisted(ctx context.Context, ns string, sp *space, raw string) (*hnsw.Graph, error) {
	var meta graphMeta
	if err := json.Unmarshal([]byte(raw), &meta); err != nil {
		return nil, fmt.Errorf("%w: meta: %w", errGraphInvalid, err)
	}
	switch {
	case meta.Model != s.model:
		return nil, fmt.Errorf("%w: built for model %q, the model is %q", errGraphInvalid, meta.Model, s.model)
	case meta.Dim != s.dim:
		return nil, fmt.Errorf("%w: built for %d dimensions, the model has %d", errGraphInvalid, meta.Dim, s.dim)
	}
	g, err := hnsw.New(s.dim, hnsw.Config{M: meta.M})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errGraphInvalid, err)
	}
	edges, err := s.store.FindEdges(ctx, holomem.EdgeFilter{Namespace: ns, Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginHNSW})
	if err != nil {
		return nil, fmt.Errorf("read graph edges: %w", err)
	}
	upper, err := s.store.IndexLinks(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("read graph links: %w", err)
	}
	type key struct {
		level int
		from  int64
	}
	lists := map[key][]int64{}
	add := func(level int, from, to int64) {
		k := key{level, from}
		lists[k] = append(lists[k], to)
	}
	for _, e := range edges {
		add(0, e.From, e.To)
	}
	for _, l := range upper {
		add(l.Level, l.From, l.To)
	}
	if len(meta.Shared) > 0 {
		others, err := s.store.FindEdges(ctx, holomem.EdgeFilter{Namespace: ns, Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}})
		if err != nil {
			return nil, fmt.Errorf("read similar_to edges: %w", err)
		}
		have := map[[2]int64]bool{}
		for _, e := range others {
			if e.Origin != holomem.OriginHNSW {
				have[[2]int64{e.From, e.To}] = true
			}
		}
		for _, p := range meta.Shared {
			if have[p] {
				add(0, p[0], p[1])
			}
		}
	}
	n := 0
	links := make([]hnsw.Link, 0, len(lists))
	for k, to := range lists {
		slices.Sort(to)
		n += len(to)
		links = append(links, hnsw.Link{Level: k.level, From: k.from, To: to})
	}
	slices.SortFunc(links, func(a, b hnsw.Link) int {
		if c := cmp.Compare(a.Level, b.Level); c != 0 {
			return c
		}
		return cmp.Compare(a.From, b.From)
	})
	if n != meta.Edges {
		return nil, fmt.Errorf("%w: %d edges stored, the build wrote %d", errGraphInvalid, n, meta.Edges)
	}
	nodes := map[int64]bool{meta.Entry: true}
	for _, l := range links {
		if l.Level == 0 {
			nodes[l.From] = true
		}
	}
	if len(nodes) != meta.Nodes {
		return nil, fmt.Errorf("%w: %d nodes stored, the build had %d", errGraphInvalid, len(nodes), meta.Nodes)
	}
	ids := make([]int64, 0, len(nodes))
	for id := range nodes {
		if sp.mat.Has(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	vecs := make([][]float32, len(ids))
	for i, id := range ids {
		vecs[i], _ = sp.mat.Get(id)
	}
	if err := g.Import(meta.Entry, links, ids, vecs); err != nil {
		return nil, err
	}
	return g, nil
}

// attachPersisted loads the stored graph of ns (meta raw) into sp, which
// is not published yet, and runs the canary on it. A graph that fails a
// check is never trusted: the problem is logged and noted, and the graph
// is rebuilt in memory (namespaces up to 50k vectors) or the namespace
// falls back to exact search until `holomem graph build`. Only I/O errors
// and cancellation are returned.
func (s *Index) attachPersisted(ctx context.Context, ns string, sp *space, raw string) error {
	g, err := s.importPersisted(ctx, ns, sp, raw)
	switch {
	case err == nil:
		sp.graph, sp.stamp = g, raw
	case !graphError(err):
		return fmt.Errorf("load graph of %q: %w", ns, err)
	default:
		s.log.Warn("persisted hnsw graph is corrupt", "namespace", ns, "err", err)
		sp.stamp = raw
		if sp.mat.Len() > s.cfg.rebuildMax {
			sp.fallback = fmt.Sprintf("corrupt: %v; exact fallback: run `holomem graph build`", err)
			sp.notes = append(sp.notes, sp.fallback)
			return nil
		}
		ids, vecs := sp.mat.Snapshot()
		if len(ids) < 2 {
			sp.notes = append(sp.notes, fmt.Sprintf("corrupt: %v; exact search (fewer than 2 vectors)", err))
			return nil
		}
		g, _, berr := s.buildCanonical(ctx, ns, ids, vecs, nil)
		if berr != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			sp.fallback = fmt.Sprintf("corrupt: %v; rebuild failed (%v); exact fallback: run `holomem graph build`", err, berr)
			sp.notes = append(sp.notes, sp.fallback)
			return nil
		}
		sp.graph, sp.changes = g, max(g.Len(), PersistAtCloseMin) // persisted at Close
		sp.notes = append(sp.notes, fmt.Sprintf("corrupt: %v; rebuilt in memory (persisted at close or by `holomem graph build`)", err))
	}
	sp.reconcile()
	rep, err := s.canarySpace(ctx, ns, sp, autoCanarySample)
	if err != nil {
		return err
	}
	if err := s.recordCanary(ctx, rep); err != nil {
		return err
	}
	s.applyCanaryLocked(sp, rep)
	return nil
}

// Persist writes every in-memory graph that has edits not stored yet
// (incremental inserts, deletes, an in-memory rebuild after corruption) as
// its namespace's stored graph, the way Build does, and returns how many
// namespaces it wrote. Only namespaces with at least minChanges edits are
// written ([PersistAtCloseMin] when a process closes, 1 to write all). A namespace in fallback is skipped: its graph is not
// trusted, `holomem graph build` replaces it.
//
// Trade-off: persisting rewrites all of a namespace's graph edges (about
// 20 per vector), so it is not done per write. Until it runs, the stored
// graph lacks the newest vectors; a load finds them in the delta (vectors
// without a node), which is scanned exactly, so results stay correct and a
// CLI that writes without touching the graph never makes it wrong. Close
// persists only namespaces with at least 1,000 unpersisted edits (or a
// rebuild), so a one-shot CLI `add` does not rewrite the whole graph.
func (s *Index) Persist(ctx context.Context, minChanges int) (int, error) {
	if s == nil {
		return 0, nil
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.RLock()
	names := slices.Sorted(maps.Keys(s.mu.spaces))
	s.mu.RUnlock()
	n := 0
	for _, ns := range names {
		s.mu.RLock()
		sp := s.mu.spaces[ns]
		g, changes := sp.graph, sp.changes
		skip := g == nil || changes < minChanges || sp.fallback != "" || !graphBuilt(g)
		var links []hnsw.Link
		var ids []int64
		var vecs [][]float32
		if !skip {
			links = g.Export()
			ids, vecs = sp.mat.Snapshot()
		}
		s.mu.RUnlock()
		if skip {
			continue
		}
		for i := range links {
			slices.Sort(links[i].To)
		}
		entry, _ := g.Entry()
		raw, _, err := s.persist(ctx, ns, g, entry, links, ids, vecs, nil)
		if err != nil {
			return n, fmt.Errorf("persist graph of %q: %w", ns, err)
		}
		s.mu.Lock()
		if sp.graph == g {
			sp.stamp = raw
			sp.changes -= changes
			sp.notes = slices.DeleteFunc(sp.notes, isGraphNote)
		}
		s.mu.Unlock()
		n++
	}
	return n, nil
}

// GraphModel is the embedding model and dimension a stored graph was
// built for.
type GraphModel struct {
	Model string `json:"model"`
	Dim   int    `json:"dim"`
}

// StoredGraphModels returns the models of the graphs store holds (one
// entry per model, sorted), read from their descriptions: what a copy of
// the store must build again on the destination, whose ids differ.
// Descriptions that do not decode are skipped ([VerifyGraphs] reports
// them).
func StoredGraphModels(ctx context.Context, store holomem.IndexStore) ([]GraphModel, error) {
	st, err := store.Stats(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("stored graphs: %w", err)
	}
	seen := map[GraphModel]bool{}
	for _, ns := range slices.Sorted(maps.Keys(st.Namespaces)) {
		raw, err := store.IndexGraph(ctx, ns)
		if errors.Is(err, holomem.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stored graph of %q: %w", ns, err)
		}
		var meta graphMeta
		if json.Unmarshal([]byte(raw), &meta) != nil || meta.Model == "" || meta.Dim <= 0 {
			continue
		}
		seen[GraphModel{Model: meta.Model, Dim: meta.Dim}] = true
	}
	return slices.SortedFunc(maps.Keys(seen), func(a, b GraphModel) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Dim, b.Dim))
	}), nil
}

// GraphCheck is what [VerifyGraphs] found for one namespace's stored graph.
type GraphCheck struct {
	Namespace string `json:"namespace"`
	Model     string `json:"model,omitempty"`
	Nodes     int    `json:"nodes"`
	Edges     int    `json:"edges"`
	// Problem says why the stored graph would not be trusted by a load
	// (empty when it decodes).
	Problem string `json:"problem,omitempty"`
}

// VerifyGraphs decodes the stored HNSW graph of every namespace the way a
// load does (its meta, edge and node counts against the edges, every link
// through the hnsw package's checks) without trusting, rebuilding or
// writing anything: `holomem verify` reports what a load would otherwise
// repair silently. It needs no model: the graph's meta names the model and
// dimension whose vectors it reads. Namespaces without a stored graph are
// skipped. Only I/O errors are returned; a damaged graph is a Problem.
func VerifyGraphs(ctx context.Context, store holomem.IndexStore) ([]GraphCheck, error) {
	st, err := store.Stats(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("verify graphs: %w", err)
	}
	var out []GraphCheck
	for _, ns := range slices.Sorted(maps.Keys(st.Namespaces)) {
		raw, err := store.IndexGraph(ctx, ns)
		if errors.Is(err, holomem.ErrNotFound) || (err == nil && raw == "") {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("verify graph of %q: %w", ns, err)
		}
		c := GraphCheck{Namespace: ns}
		var meta graphMeta
		if err := json.Unmarshal([]byte(raw), &meta); err != nil {
			c.Problem = fmt.Sprintf("%v: meta: %v", errGraphInvalid, err)
			out = append(out, c)
			continue
		}
		c.Model, c.Nodes, c.Edges = meta.Model, meta.Nodes, meta.Edges
		if meta.Dim <= 0 || meta.Dim > 1<<16 {
			c.Problem = fmt.Sprintf("%v: meta names %d dimensions", errGraphInvalid, meta.Dim)
			out = append(out, c)
			continue
		}
		idx := New(store, meta.Model, meta.Dim, Config{}, nil)
		sp := newSpace(meta.Dim)
		skipped := 0
		err = store.ScanEmbeddings(ctx, ns, meta.Model, func(id int64, v []float32) error {
			if sp.mat.Add(id, v) != nil {
				skipped++
			}
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("verify graph of %q: vectors: %w", ns, err)
		}
		if skipped > 0 {
			c.Problem = fmt.Sprintf("%v: built for %d dimensions, %d vectors of %s are not", errGraphInvalid, meta.Dim, skipped, meta.Model)
			out = append(out, c)
			continue
		}
		if _, err := idx.importPersisted(ctx, ns, sp, raw); err != nil {
			if !graphError(err) {
				return out, fmt.Errorf("verify graph of %q: %w", ns, err)
			}
			c.Problem = err.Error()
		}
		out = append(out, c)
	}
	return out, nil
}
