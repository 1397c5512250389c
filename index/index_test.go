package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/vec"
)

const indexDim = 64

// clusteredVectors returns n seeded unit vectors of dim around centres
// random centres (cosine about 0.8 to their centre), the way sentence
// embeddings bunch by topic.
func clusteredVectors(seed uint64, n, dim, centres int) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	gauss := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		vec.Normalize(v)
		return v
	}
	cs := make([][]float32, centres)
	for i := range cs {
		cs[i] = gauss()
	}
	out := make([][]float32, n)
	for i := range out {
		c, d := cs[r.IntN(centres)], gauss()
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 0.75*d[j]
		}
		vec.Normalize(v)
		out[i] = v
	}
	return out
}

// indexFixture is a store holding n clustered vectors in namespace "default"
// under the fixture embedder's model.
type indexFixture struct {
	emb   *fixtureEmbedder
	store holomem.Store
	mem   *retrieve.Memory
	facts []*holomem.Fact
	opts  retrieve.Options
}

func newIndexFixture(t *testing.T, n, exactBelow int) *indexFixture {
	t.Helper()
	emb := &fixtureEmbedder{dim: indexDim, vecs: map[string][]float32{}}
	opts := retrieve.Options{Embedder: emb, ExactBelow: exactBelow}
	if raceEnabled {
		// Fewer links to store: SQLite writes are the slow part under -race.
		opts.GraphM = 8
	}
	m, s := testutil.MustOpenMemory(t, opts)
	fx := &indexFixture{emb: emb, store: s, mem: m, opts: opts}
	fx.add(t, m, 1, n)
	return fx
}

// add imports n more facts with vectors through mem.
func (fx *indexFixture) add(t *testing.T, mem *retrieve.Memory, seed uint64, n int) []*holomem.Fact {
	t.Helper()
	vs := clusteredVectors(seed, n, indexDim, max(n/30, 2))
	facts := make([]*holomem.Fact, n)
	for i, v := range vs {
		text := fmt.Sprintf("note %d of batch %d", i, seed)
		fx.emb.vecs[text] = v
		facts[i] = &holomem.Fact{Content: text, Embedding: v, ModelID: fx.emb.ModelID()}
	}
	if _, err := mem.Import(t.Context(), facts); err != nil {
		t.Fatal(err)
	}
	fx.facts = append(fx.facts, facts...)
	return facts
}

// open returns a fresh Memory over the fixture's store.
func (fx *indexFixture) open(t *testing.T, opts retrieve.Options) *retrieve.Memory {
	t.Helper()
	m, err := retrieve.New(fx.store, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func resIDs(rs []vec.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// check compares every query-th fact's search with an exact scan: it
// returns recall@10, counts the facts not found first by their own vector
// and the modes seen.
func check(t *testing.T, m *retrieve.Memory, facts []*holomem.Fact, every int) (recall float64, notFirst int, modes map[index.Mode]int) {
	t.Helper()
	ctx := t.Context()
	modes = map[index.Mode]int{}
	var ann, exact [][]int64
	for i := 0; i < len(facts); i += every {
		f := facts[i]
		got, mode, err := m.Index().SearchMode(ctx, holomem.DefaultNamespace, f.Embedding, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, err := index.ExactSearch(m.Index(), holomem.DefaultNamespace, f.Embedding, 10)
		if err != nil {
			t.Fatal(err)
		}
		modes[mode]++
		if len(got) == 0 || got[0].ID != f.ID {
			notFirst++
		}
		ann, exact = append(ann, resIDs(got)), append(exact, resIDs(want))
	}
	return hnsw.Recall(ann, exact), notFirst, modes
}

// sameAsExact fails unless every sampled search equals the exact scan.
func sameAsExact(t *testing.T, m *retrieve.Memory, facts []*holomem.Fact, every int, wantMode index.Mode) {
	t.Helper()
	for i := 0; i < len(facts); i += every {
		q := facts[i].Embedding
		got, mode, err := m.Index().SearchMode(t.Context(), holomem.DefaultNamespace, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := index.ExactSearch(m.Index(), holomem.DefaultNamespace, q, 10)
		if mode != wantMode || !slices.Equal(got, want) {
			t.Fatalf("query %d: mode %s (want %s), got %v, exact %v", i, mode, wantMode, resIDs(got), resIDs(want))
		}
	}
}

func status(t *testing.T, m *retrieve.Memory) index.Status {
	t.Helper()
	sts, err := m.Index().Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if st.Namespace == holomem.DefaultNamespace {
			return st
		}
	}
	t.Fatalf("no index status for the default namespace in %+v", sts)
	return index.Status{}
}

// hnswEdges returns the stored graph of the default namespace (its
// similar_to edges and upper-layer links) as comparable strings.
func hnswEdges(t *testing.T, s holomem.Store) []string {
	t.Helper()
	es, err := s.FindEdges(t.Context(), holomem.EdgeFilter{Origin: holomem.OriginHNSW})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%d>%d %s %.6f", e.From, e.To, e.Kind, e.Weight)
	}
	links, err := s.IndexLinks(t.Context(), holomem.DefaultNamespace)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		out = append(out, fmt.Sprintf("%d>%d L%d", l.From, l.To, l.Level))
	}
	return out
}

// TestSemantic_ExactBelowThreshold: a namespace smaller than ExactBelow is
// scanned exactly, graph or not.
func TestSemantic_ExactBelowThreshold(t *testing.T) {
	fx := newIndexFixture(t, 150, 0)
	if _, err := fx.mem.Index().Build(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	sameAsExact(t, fx.mem, fx.facts, 7, "exact")
	if st := status(t, fx.mem); st.Mode != "exact" || st.Nodes != 150 {
		t.Errorf("status = %+v, want exact mode over a 150-node graph", st)
	}
}

// TestSemantic_HNSW covers the graph's life: exact before a build (never an
// empty graph), ANN with recall >= 0.95 after it, the same results from a
// fresh Memory that loads the persisted graph, and incremental inserts.
func TestSemantic_HNSW(t *testing.T) {
	n := 3000
	if testing.Short() || raceEnabled {
		n = 600
	}
	fx := newIndexFixture(t, n, 100)
	ctx := t.Context()

	t.Run("BeforeBuildExact", func(t *testing.T) {
		sameAsExact(t, fx.mem, fx.facts, 37, "exact")
		st := status(t, fx.mem)
		if st.Mode != "exact" || st.Nodes != 0 || len(st.Notes) == 0 || !strings.Contains(st.Notes[0], "graph build") {
			t.Errorf("status before build = %+v", st)
		}
	})

	var phases []string
	rep, err := fx.mem.Index().Build(ctx, func(phase string, done, total int) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Namespaces) != 1 || rep.Namespaces[0].Vectors != n || rep.Namespaces[0].Edges < n || rep.Namespaces[0].Canary == nil || rep.Namespaces[0].Canary.Tripped {
		t.Fatalf("report = %+v", rep)
	}
	if !slices.Contains(phases, "graph build default") || !slices.Contains(phases, "graph persist default") {
		t.Errorf("progress phases = %v", phases)
	}
	if built := hnswEdges(t, fx.store); len(built) != rep.Namespaces[0].Edges {
		t.Errorf("%d edges stored, report says %d", len(built), rep.Namespaces[0].Edges)
	}

	t.Run("ANNRecall", func(t *testing.T) {
		recall, notFirst, modes := check(t, fx.mem, fx.facts, 1)
		if modes["hnsw"] != len(fx.facts) {
			t.Errorf("modes = %v, want all hnsw", modes)
		}
		if recall < 0.95 || notFirst > 0 {
			t.Errorf("recall@10 = %.3f (want >= 0.95), %d vectors not first for themselves", recall, notFirst)
		}
		st := status(t, fx.mem)
		if st.Mode != "hnsw" || st.Nodes != n || st.Delta != 0 || st.Recall < 0.9 {
			t.Errorf("status = %+v", st)
		}
	})

	t.Run("Reload", func(t *testing.T) {
		m2 := fx.open(t, fx.opts)
		for i := 0; i < len(fx.facts); i += 11 {
			q := fx.facts[i].Embedding
			a, _, err := fx.mem.Index().SearchMode(ctx, holomem.DefaultNamespace, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			b, mode, err := m2.Index().SearchMode(ctx, holomem.DefaultNamespace, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if mode != "hnsw" || !slices.Equal(a, b) {
				t.Fatalf("query %d after reload: mode %s, %v, before %v", i, mode, resIDs(b), resIDs(a))
			}
		}
		if st := status(t, m2); st.Nodes != n || len(st.Notes) != 0 || st.Recall < 0.9 {
			t.Errorf("reloaded status = %+v", st)
		}
	})

	t.Run("Incremental", func(t *testing.T) {
		v := clusteredVectors(99, 1, indexDim, 1)[0]
		f := &holomem.Fact{Content: "a late note", Embedding: v, ModelID: fx.emb.ModelID()}
		if _, err := fx.mem.Remember(ctx, f); err != nil {
			t.Fatal(err)
		}
		got, mode, err := fx.mem.Index().SearchMode(ctx, holomem.DefaultNamespace, v, 5)
		if err != nil || mode != "hnsw" || len(got) == 0 || got[0].ID != f.ID {
			t.Fatalf("new fact: %v (%s), %v; want %d first", resIDs(got), mode, err, f.ID)
		}
		st := status(t, fx.mem)
		if st.Nodes != n+1 || st.Delta != 0 || st.Unpersisted == 0 {
			t.Errorf("after an incremental insert status = %+v", st)
		}
		// Without incremental insert the vector waits in the delta, found all the same.
		opts := fx.opts
		opts.DisableGraphIncremental = true
		m3 := fx.open(t, opts)
		w := clusteredVectors(98, 1, indexDim, 1)[0]
		g := &holomem.Fact{Content: "another late note", Embedding: w, ModelID: fx.emb.ModelID()}
		if _, err := m3.Remember(ctx, g); err != nil {
			t.Fatal(err)
		}
		got, mode, err = m3.Index().SearchMode(ctx, holomem.DefaultNamespace, w, 5)
		if err != nil || mode != "hnsw" || len(got) == 0 || got[0].ID != g.ID {
			t.Fatalf("delta fact: %v (%s), %v; want %d first", resIDs(got), mode, err, g.ID)
		}
		if st := status(t, m3); st.Delta != 2 || st.Nodes != n {
			// The first Memory's insert was not persisted: it is in the delta too.
			t.Errorf("without incremental insert status = %+v, want delta 2", st)
		}
		// A write by another process reaches this one on refresh, through the delta.
		if err := fx.mem.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		got, _, err = fx.mem.Index().SearchMode(ctx, holomem.DefaultNamespace, w, 5)
		if err != nil || len(got) == 0 || got[0].ID != g.ID {
			t.Fatalf("after refresh: %v, %v; want %d first", resIDs(got), err, g.ID)
		}
		// Forget drops it from the graph and the results.
		if err := fx.mem.Forget(ctx, f.ID); err != nil {
			t.Fatal(err)
		}
		got, _, _ = fx.mem.Index().SearchMode(ctx, holomem.DefaultNamespace, v, 5)
		if slices.Contains(resIDs(got), f.ID) {
			t.Errorf("forgotten fact %d still found: %v", f.ID, resIDs(got))
		}
		// PersistGraphs stores the in-memory edits; a fresh load has them.
		if k, err := fx.mem.Index().Persist(ctx, 1); err != nil || k != 1 {
			t.Fatalf("PersistGraphs = %d, %v; want 1", k, err)
		}
		if st := status(t, fx.mem); st.Unpersisted != 0 {
			t.Errorf("after PersistGraphs status = %+v", st)
		}
		m4 := fx.open(t, fx.opts)
		if st := status(t, m4); st.Mode != "hnsw" || st.Nodes != n || st.Delta != 1 || len(st.Notes) != 0 {
			t.Errorf("after persisting, a fresh load: %+v; want %d nodes and delta 1", st, n)
		}
		got, _, err = m4.Index().SearchMode(ctx, holomem.DefaultNamespace, w, 5)
		if err != nil || len(got) == 0 || got[0].ID != g.ID {
			t.Fatalf("after persist and reload: %v, %v; want %d first", resIDs(got), err, g.ID)
		}
	})
}

// TestSemantic_CorruptGraph: a damaged persisted graph is detected at
// load, reported, rebuilt in memory (or scanned exactly when too large),
// and results stay correct; Close persists the repair.
func TestSemantic_CorruptGraph(t *testing.T) {
	n := 400
	if raceEnabled {
		n = 200
	}
	fx := newIndexFixture(t, n, 100)
	ctx := t.Context()
	if _, err := fx.mem.Index().Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// setGraph stores desc (and the links plus extra) as the graph of the
	// default namespace.
	setGraph := func(t *testing.T, desc string, extra ...holomem.IndexLink) {
		t.Helper()
		if desc == "" {
			var err error
			if desc, err = fx.store.IndexGraph(ctx, "default"); err != nil {
				t.Fatal(err)
			}
		}
		links, err := fx.store.IndexLinks(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		if err := fx.store.SaveIndexGraph(ctx, "default", desc, append(links, extra...)); err != nil {
			t.Fatal(err)
		}
	}
	meta := func() map[string]any {
		raw, err := fx.store.IndexGraph(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// verify reads the stored graph without trusting or repairing it.
	verifyGraphs := func(t *testing.T) []index.GraphCheck {
		t.Helper()
		cs, err := index.VerifyGraphs(ctx, fx.store)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 1 || cs[0].Namespace != "default" {
			t.Fatalf("VerifyGraphs = %+v, want one check of namespace default", cs)
		}
		return cs
	}
	if cs := verifyGraphs(t); cs[0].Problem != "" || cs[0].Nodes != n || cs[0].Edges == 0 {
		t.Fatalf("VerifyGraphs of a fresh build = %+v", cs)
	}
	tests := []struct {
		name    string
		corrupt func(t *testing.T)
		want    string
	}{
		{"DeletedEdges", func(t *testing.T) {
			es, err := fx.store.FindEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginHNSW, Limit: 30})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es[:25] {
				if err := fx.store.DeleteEdge(ctx, e.From, e.To, e.Kind); err != nil {
					t.Fatal(err)
				}
			}
		}, "edges stored"},
		{"WrongLevel", func(t *testing.T) {
			// Move one bottom-layer edge to a level its nodes do not reach,
			// keeping the edge count.
			es, err := fx.store.FindEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginHNSW})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if hnsw.Level(e.From, graphM(fx.opts)) < 5 {
					if err := fx.store.DeleteEdge(ctx, e.From, e.To, e.Kind); err != nil {
						t.Fatal(err)
					}
					setGraph(t, "", holomem.IndexLink{Level: 5, From: e.From, To: e.To})
					return
				}
			}
			t.Fatal("no low-level node")
		}, "level"},
		{"WrongEntry", func(t *testing.T) {
			m := meta()
			m["entry"] = float64(fx.facts[0].ID)
			if int64(m["entry"].(float64)) == fx.facts[0].ID && hnsw.Level(fx.facts[0].ID, graphM(fx.opts)) > 0 {
				m["entry"] = float64(fx.facts[1].ID)
			}
			b, _ := json.Marshal(m)
			setGraph(t, string(b))
		}, "entry"},
		{"OtherModel", func(t *testing.T) {
			m := meta()
			m["model"] = "other@1"
			b, _ := json.Marshal(m)
			setGraph(t, string(b))
		}, "model"},
		{"OtherDim", func(t *testing.T) {
			m := meta()
			m["dim"] = 32
			b, _ := json.Marshal(m)
			setGraph(t, string(b))
		}, "dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.corrupt(t)
			// A graph of another model is stale, not damaged: verify reads
			// it with that model's vectors (here none).
			if cs := verifyGraphs(t); cs[0].Problem == "" && tt.name != "OtherModel" {
				t.Errorf("VerifyGraphs found nothing wrong: %+v", cs)
			} else if tt.name != "OtherModel" && !strings.Contains(cs[0].Problem, tt.want) {
				t.Errorf("VerifyGraphs problem %q lacks %q", cs[0].Problem, tt.want)
			}
			m, err := retrieve.New(fx.store, fx.opts)
			if err != nil {
				t.Fatal(err)
			}
			recall, notFirst, modes := check(t, m, fx.facts, 3)
			st := status(t, m)
			if len(st.Notes) == 0 || !strings.Contains(st.Notes[0], "corrupt:") || !strings.Contains(st.Notes[0], tt.want) || !strings.Contains(st.Notes[0], "rebuilt") {
				t.Errorf("notes = %q, want a corrupt: ... %s ... rebuilt note", st.Notes, tt.want)
			}
			if modes["hnsw"] == 0 || recall < 0.95 || notFirst > 0 {
				t.Errorf("rebuilt graph: modes %v, recall %.3f, %d not first", modes, recall, notFirst)
			}
			// Close persists the rebuilt graph: the next load is clean.
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			m2 := fx.open(t, fx.opts)
			if st := status(t, m2); len(st.Notes) != 0 || st.Mode != "hnsw" {
				t.Errorf("after the repair status = %+v", st)
			}
		})
	}
	t.Run("ExactFallbackWhenLarge", func(t *testing.T) {
		tests[0].corrupt(t)
		m := fx.open(t, fx.opts)
		index.SetRebuildMax(m.Index(), 10)
		sameAsExact(t, m, fx.facts, 5, "fallback")
		st := status(t, m)
		if st.Mode != "fallback" || len(st.Notes) == 0 || !strings.Contains(st.Notes[0], "holomem graph build") {
			t.Errorf("status = %+v", st)
		}
	})
}

// TestSemantic_Canary: a graph whose recall collapses trips the canary and
// searches fall back to exact until the next build, which stores exactly
// the edges of the first build (builds are deterministic).
func TestSemantic_Canary(t *testing.T) {
	n := 600
	if raceEnabled {
		n = 300
	}
	fx := newIndexFixture(t, n, 100)
	ctx := t.Context()
	if _, err := fx.mem.Index().Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rep, err := fx.mem.Index().Canary(ctx, holomem.DefaultNamespace, 40)
	if err != nil || rep.Tripped || rep.Sample != 40 || rep.Recall < 0.95 {
		t.Fatalf("healthy canary = %+v, %v", rep, err)
	}
	built := hnswEdges(t, fx.store)
	if err := index.SabotageGraph(fx.mem.Index(), holomem.DefaultNamespace); err != nil {
		t.Fatal(err)
	}
	rep, err = fx.mem.Index().Canary(ctx, holomem.DefaultNamespace, 40)
	if err != nil || !rep.Tripped || rep.Recall >= 0.9 || !strings.Contains(rep.Reason, "recall") {
		t.Fatalf("sabotaged canary = %+v, %v", rep, err)
	}
	sameAsExact(t, fx.mem, fx.facts, 9, "fallback")
	st := status(t, fx.mem)
	if st.Mode != "fallback" || st.Recall != rep.Recall {
		t.Errorf("status = %+v", st)
	}
	raw, err := fx.store.Meta(ctx, "canary:default")
	if err != nil || !strings.Contains(raw, `"sample":40`) {
		t.Errorf("canary meta = %q, %v", raw, err)
	}
	if _, err := fx.mem.Index().Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if st := status(t, fx.mem); st.Mode != "hnsw" {
		t.Errorf("after a rebuild mode = %s", st.Mode)
	}
	if again := hnswEdges(t, fx.store); len(built) == 0 || !slices.Equal(again, built) {
		t.Errorf("second build stored %d edges, first %d; they differ", len(again), len(built))
	}
	if _, err := fx.mem.Index().Canary(ctx, "nowhere", 10); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("canary of an unknown namespace: %v, want ErrNotFound", err)
	}
}

// TestSemantic_Dimensions: a query or stored vector of the wrong length
// gives an error or is skipped with a note, never a panic.
func TestSemantic_Dimensions(t *testing.T) {
	fx := newIndexFixture(t, 50, 0)
	ctx := t.Context()
	_, _, err := fx.mem.Index().SearchMode(ctx, holomem.DefaultNamespace, make([]float32, 32), 5)
	if !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("32-d query: %v, want ErrInvalid", err)
	}
	bad := make([]float32, indexDim)
	bad[0] = float32(nanValue())
	if _, _, err := fx.mem.Index().SearchMode(ctx, holomem.DefaultNamespace, bad, 5); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("NaN query: %v, want ErrInvalid", err)
	}
	short := []float32{1, 0, 0}
	if err := fx.store.SetEmbeddings(ctx, fx.emb.ModelID(), map[int64][]float32{fx.facts[0].ID: short}); err != nil {
		t.Fatal(err)
	}
	m := fx.open(t, fx.opts)
	st := status(t, m)
	if st.Vectors != 49 || len(st.Notes) == 0 || !strings.Contains(st.Notes[0], "skipped") {
		t.Errorf("status = %+v, want 49 vectors and a note on the skipped one", st)
	}
	if _, _, err := m.Index().SearchMode(ctx, holomem.DefaultNamespace, fx.facts[1].Embedding, 5); err != nil {
		t.Error(err)
	}
}

func graphM(o retrieve.Options) int {
	if o.GraphM > 0 {
		return o.GraphM
	}
	return hnsw.DefaultM
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

// TestSemantic_NoEmbedder: the graph API needs a model.
func TestSemantic_NoEmbedder(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := context.Background()
	if _, err := m.Index().Build(ctx, nil); !errors.Is(err, holomem.ErrNoEmbedder) {
		t.Errorf("BuildGraph: %v", err)
	}
	if _, err := m.Index().Canary(ctx, "default", 5); !errors.Is(err, holomem.ErrNoEmbedder) {
		t.Errorf("Canary: %v", err)
	}
	if st, err := m.Index().Status(ctx); st != nil || err != nil {
		t.Errorf("IndexStatus = %v, %v", st, err)
	}
}

// TestSemantic_SharedEdge: a graph link whose pair already has a
// similar_to edge from another source leaves that edge alone (origin and
// weight) and is recorded in the meta, so a load still finds the link.
func TestSemantic_SharedEdge(t *testing.T) {
	fx := newIndexFixture(t, 150, 100)
	ctx := t.Context()
	if _, err := fx.mem.Index().Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	es, err := fx.store.FindEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginHNSW, Limit: 1})
	if err != nil || len(es) != 1 {
		t.Fatalf("FindEdges = %v, %v", es, err)
	}
	e := es[0]
	if err := fx.store.DeleteEdge(ctx, e.From, e.To, e.Kind); err != nil {
		t.Fatal(err)
	}
	user := &holomem.Edge{From: e.From, To: e.To, Kind: holomem.EdgeSimilar, Weight: 0.123, Origin: holomem.OriginUser}
	if _, err := fx.store.CreateEdge(ctx, user); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.mem.Index().Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got, err := fx.store.FindEdges(ctx, holomem.EdgeFilter{From: e.From, To: e.To})
	if err != nil || len(got) != 1 || got[0].Origin != holomem.OriginUser || got[0].Weight != 0.123 {
		t.Errorf("user edge after the build = %+v, %v", got, err)
	}
	raw, _ := fx.store.IndexGraph(ctx, "default")
	if !strings.Contains(raw, fmt.Sprintf(`"shared":[[%d,%d]]`, e.From, e.To)) {
		t.Errorf("meta = %s, want the shared pair", raw)
	}
	m := fx.open(t, fx.opts)
	if st := status(t, m); st.Mode != "hnsw" || len(st.Notes) != 0 || st.Nodes != 150 {
		t.Errorf("reload status = %+v", st)
	}
}

// fixtureEmbedder returns precomputed vectors for known texts (the way
// chromem-go freezes embeddings in fixtures): the graph tests need vectors
// with a chosen geometry, which no real model gives on demand.
type fixtureEmbedder struct {
	dim  int
	vecs map[string][]float32
}

func (e *fixtureEmbedder) ModelID() string { return "fixture@1#mean" }
func (e *fixtureEmbedder) Dim() int        { return e.dim }
func (e *fixtureEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vecs[t]
		if !ok {
			return nil, fmt.Errorf("%w: no fixture vector for %q", holomem.ErrInvalid, t)
		}
		out[i] = v
	}
	return out, nil
}
