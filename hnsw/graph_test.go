package hnsw_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// size returns full when the test runs normally and small under -short or
// -race, keeping the package under the time budget.
func size(full, small int) int {
	if testing.Short() || raceEnabled {
		return small
	}
	return full
}

func mustNew(tb testing.TB, dim int, cfg hnsw.Config) *hnsw.Graph {
	tb.Helper()
	g, err := hnsw.New(dim, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func mustBuild(tb testing.TB, ids []int64, vecs [][]float32, cfg hnsw.Config, workers int) *hnsw.Graph {
	tb.Helper()
	g := mustNew(tb, len(vecs[0]), cfg)
	if err := g.Build(tb.(interface{ Context() context }).Context(), ids, vecs, workers); err != nil {
		tb.Fatal(err)
	}
	return g
}

func resultIDs(rs []vec.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		dim  int
		cfg  hnsw.Config
		err  error
	}{
		{"OK", 8, hnsw.Config{}, nil},
		{"ErrConfigDim", 0, hnsw.Config{}, hnsw.ErrConfig},
		{"ErrConfigM", 8, hnsw.Config{M: 1}, hnsw.ErrConfig},
		{"ErrConfigBigM", 8, hnsw.Config{M: 200}, hnsw.ErrConfig},
		{"ErrConfigEf", 8, hnsw.Config{EfSearch: -1}, hnsw.ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := hnsw.New(tt.dim, tt.cfg)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err == nil {
				if got, want := g.Config().M, hnsw.DefaultM; got != want {
					t.Fatalf("M = %d, want %d", got, want)
				}
			}
		})
	}
}

func TestLevel(t *testing.T) {
	// Levels come from the id alone and fall geometrically by 1/M.
	counts := make([]int, 8)
	const n = 100_000
	for id := range int64(n) {
		counts[min(hnsw.Level(id, 16), 7)]++
	}
	if frac := float64(n-counts[0]) / n; frac < 0.05 || frac > 0.075 {
		t.Fatalf("share of nodes above level 0 = %.4f, want ~1/16", frac)
	}
	// Levels are a pure function of the id, and graphs persisted by one
	// version are loaded by the next: pinned values catch a change of hash.
	for _, tt := range []struct {
		id       int64
		m, level int
	}{{0, 16, 0}, {3, 4, 1}, {558, 16, 2}, {558, 4, 5}, {992, 16, 2}, {1486, 4, 4}} {
		if got := hnsw.Level(tt.id, tt.m); got != tt.level {
			t.Errorf("Level(%d, %d) = %d, want %d (the level hash changed: persisted graphs no longer load the same)", tt.id, tt.m, got, tt.level)
		}
	}
}

func TestGraph_Empty(t *testing.T) {
	g := mustNew(t, 4, hnsw.Config{})
	res, err := g.Search([]float32{1, 0, 0, 0}, 5, 0)
	if err != nil || len(res) != 0 {
		t.Fatalf("Search on empty = %v, %v", res, err)
	}
	if _, ok := g.Entry(); ok {
		t.Fatal("empty graph has an entry")
	}
	if g.Len() != 0 || g.EdgeCount() != 0 {
		t.Fatalf("Len %d EdgeCount %d", g.Len(), g.EdgeCount())
	}
	var zero hnsw.Graph
	if err := zero.Add(1, []float32{1}); !errors.Is(err, hnsw.ErrConfig) {
		t.Fatalf("Add on zero Graph err = %v", err)
	}
	if _, err := zero.Search(nil, 1, 0); !errors.Is(err, hnsw.ErrConfig) {
		t.Fatalf("Search on zero Graph err = %v", err)
	}
}

func TestGraph_ErrDim(t *testing.T) {
	g := mustNew(t, 4, hnsw.Config{})
	if err := g.Add(1, []float32{1, 0, 0}); !errors.Is(err, vec.ErrDim) {
		t.Fatalf("Add err = %v", err)
	}
	if err := g.Add(1, []float32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := g.Add(1, []float32{0, 1, 0, 0}); !errors.Is(err, hnsw.ErrExists) {
		t.Fatalf("Add twice err = %v", err)
	}
	if res, err := g.Search([]float32{1, 0, 0, 0}, 1<<50, 1<<60); err != nil || len(res) != 1 {
		t.Fatalf("huge k and ef: %v, %v", res, err)
	}
	if _, err := g.Search([]float32{1, 0}, 1, 0); !errors.Is(err, vec.ErrDim) {
		t.Fatalf("Search err = %v", err)
	}
	if err := g.Build(t.Context(), []int64{2, 3}, [][]float32{{1, 0, 0, 0}, {1}}, 1); !errors.Is(err, vec.ErrDim) {
		t.Fatalf("Build err = %v", err)
	}
	if err := g.Build(t.Context(), []int64{2, 2}, [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}}, 1); !errors.Is(err, hnsw.ErrExists) {
		t.Fatalf("Build duplicate err = %v", err)
	}
	if g.Len() != 1 {
		t.Fatalf("failed Build changed the graph: Len %d", g.Len())
	}
	if err := g.Import(1, nil, []int64{1}, [][]float32{{1, 0}}); !errors.Is(err, vec.ErrDim) {
		t.Fatalf("Import err = %v", err)
	}
}

// TestGraph_SelfFind checks that every indexed vector is its own nearest
// neighbour: the query equal to a stored vector must rank it first. coder/hnsw
// v0.6.1 fails this 5 times in 100.
func TestGraph_SelfFind(t *testing.T) {
	n := size(5000, 400)
	vecs := clustered(1, n, 384, n/50, 0.75)
	ids := seqIDs(n)
	g := mustBuild(t, ids, vecs, hnsw.Config{}, 2)
	for i, v := range vecs {
		res, err := g.Search(v, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].ID != ids[i] {
			t.Fatalf("vector %d (id %d): got %v", i, ids[i], res)
		}
	}
	t.Run("Add", func(t *testing.T) {
		// The one-by-one path too, on a smaller set.
		m := size(1000, 300)
		g := mustNew(t, 384, hnsw.Config{})
		for i := range m {
			if err := g.Add(ids[i], vecs[i]); err != nil {
				t.Fatal(err)
			}
		}
		for i := range m {
			res, _ := g.Search(vecs[i], 1, 0)
			if len(res) == 0 || res[0].ID != ids[i] {
				t.Fatalf("vector %d: got %v", i, res)
			}
		}
	})
}

func TestGraph_Recall(t *testing.T) {
	n := size(10_000, 800)
	const nq, k = 200, 10
	all := clustered(2, n+nq, 384, max(n/10, 10), 0.75)
	vecs, queries := all[:n], all[n:]
	ids := seqIDs(n)
	g := mustBuild(t, ids, vecs, hnsw.Config{}, 2)
	exact := exactTopK(ids, vecs, queries, k)
	ann := make([][]int64, nq)
	for i, q := range queries {
		res, err := g.Search(q, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		ann[i] = resultIDs(res)
	}
	if r := hnsw.Recall(ann, exact); r < 0.95 {
		t.Fatalf("recall@%d = %.3f at N=%d, want >= 0.95", k, r, n)
	} else {
		t.Logf("recall@%d = %.3f at N=%d", k, r, n)
	}
}

func TestGraph_Deterministic(t *testing.T) {
	n := size(1500, 300)
	vecs := clustered(3, n, 64, 30, 0.75)
	ids := seqIDs(n)
	a := mustBuild(t, ids, vecs, hnsw.Config{}, 1)
	b := mustBuild(t, ids, vecs, hnsw.Config{}, 3)
	if !reflect.DeepEqual(a.Export(), b.Export()) {
		t.Fatal("Build with 1 and 3 workers exported different graphs")
	}
	ea, _ := a.Entry()
	eb, _ := b.Entry()
	if ea != eb || a.MaxLevel() != b.MaxLevel() {
		t.Fatalf("entry %d/%d level %d/%d", ea, eb, a.MaxLevel(), b.MaxLevel())
	}
	c, d := mustNew(t, 64, hnsw.Config{}), mustNew(t, 64, hnsw.Config{})
	for i := range min(n, 500) {
		_ = c.Add(ids[i], vecs[i])
		_ = d.Add(ids[i], vecs[i])
	}
	if !reflect.DeepEqual(c.Export(), d.Export()) {
		t.Fatal("two runs of Add exported different graphs")
	}
}

func TestGraph_ExportImport(t *testing.T) {
	n := size(2000, 300)
	vecs := clustered(4, n, 32, 20, 0.75)
	ids := seqIDs(n)
	g := mustBuild(t, ids, vecs, hnsw.Config{M: 8}, 2)
	links := g.Export()
	entry, _ := g.Entry()
	h := mustNew(t, 32, hnsw.Config{M: 8})
	if err := h.Import(entry, links, ids, vecs); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.Export(), links) {
		t.Fatal("Export after Import differs")
	}
	if got, want := h.EdgeCount(), g.EdgeCount(); got != want {
		t.Fatalf("EdgeCount %d, want %d", got, want)
	}
	for _, q := range vecs[:50] {
		a, _ := g.Search(q, 10, 0)
		b, _ := h.Search(q, 10, 0)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("search differs after import:\n%v\n%v", a, b)
		}
	}
	t.Run("Binary", func(t *testing.T) {
		data, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var z hnsw.Graph // the zero Graph takes everything from the data
		if err := z.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		again, _ := z.MarshalBinary()
		if !bytes.Equal(again, data) {
			t.Fatal("MarshalBinary after UnmarshalBinary differs")
		}
		if !reflect.DeepEqual(z.Export(), links) || z.Config().M != 8 {
			t.Fatal("decoded graph differs")
		}
		other := mustNew(t, 16, hnsw.Config{})
		if err := other.UnmarshalBinary(data); !errors.Is(err, vec.ErrDim) {
			t.Fatalf("dimension mismatch err = %v", err)
		}
	})
}

func TestGraph_ImportCorrupt(t *testing.T) {
	const dim = 8
	n := 300
	vecs := clustered(5, n, dim, 5, 0.75)
	ids := seqIDs(n)
	g := mustBuild(t, ids, vecs, hnsw.Config{M: 4}, 1)
	good := g.Export()
	entry, _ := g.Entry()
	clone := func() []hnsw.Link {
		out := make([]hnsw.Link, len(good))
		for i, l := range good {
			out[i] = hnsw.Link{Level: l.Level, From: l.From, To: slices.Clone(l.To)}
		}
		return out
	}
	var low int64 // an id on level 0 only
	for _, id := range ids {
		if hnsw.Level(id, 4) == 0 && id != entry {
			low = id
			break
		}
	}
	tests := []struct {
		name   string
		entry  int64
		mutate func([]hnsw.Link) []hnsw.Link
		ids    []int64
	}{
		{"UnknownFrom", entry, func(l []hnsw.Link) []hnsw.Link { l[0].From = -5; return l }, nil},
		{"UnknownTo", entry, func(l []hnsw.Link) []hnsw.Link { l[0].To[0] = -5; return l }, nil},
		{"SelfLink", entry, func(l []hnsw.Link) []hnsw.Link { l[0].To[0] = l[0].From; return l }, nil},
		{"DuplicateTo", entry, func(l []hnsw.Link) []hnsw.Link {
			l[0].To = append(l[0].To[:1], l[0].To[0])
			return l
		}, nil},
		{"OverCapacity", entry, func(l []hnsw.Link) []hnsw.Link {
			l[0].To = append(l[0].To, ids[:20]...)
			return l
		}, nil},
		{"LevelAboveHash", entry, func(l []hnsw.Link) []hnsw.Link {
			return append(l, hnsw.Link{Level: 1, From: low, To: []int64{entry}})
		}, nil},
		{"ToBelowLevel", entry, func(l []hnsw.Link) []hnsw.Link {
			for i := range l {
				if l[i].Level > 0 {
					l[i].To[0] = low
					return l
				}
			}
			t.Fatal("no upper level links")
			return l
		}, nil},
		{"NegativeLevel", entry, func(l []hnsw.Link) []hnsw.Link { l[0].Level = -1; return l }, nil},
		{"ListTwice", entry, func(l []hnsw.Link) []hnsw.Link { return append(l, l[0]) }, nil},
		{"MissingEntry", -77, func(l []hnsw.Link) []hnsw.Link { return l }, nil},
		{"EntryNotOnTop", low, func(l []hnsw.Link) []hnsw.Link { return l }, nil},
		{"NoLinks", entry, func(l []hnsw.Link) []hnsw.Link { return nil }, nil},
		{"DuplicateID", entry, func(l []hnsw.Link) []hnsw.Link { return l }, append(slices.Clone(ids[:n-1]), ids[0])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mustNew(t, dim, hnsw.Config{M: 4})
			useIDs := ids
			if tt.ids != nil {
				useIDs = tt.ids
			}
			err := h.Import(tt.entry, tt.mutate(clone()), useIDs, vecs)
			if !errors.Is(err, hnsw.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if h.Len() != 0 {
				t.Fatal("failed import changed the graph")
			}
		})
	}
	t.Run("WrongM", func(t *testing.T) {
		// Levels follow from M, so a graph built with M=4 is not a valid
		// M=16 graph.
		h := mustNew(t, dim, hnsw.Config{M: 16})
		if err := h.Import(entry, clone(), ids, vecs); !errors.Is(err, hnsw.ErrCorrupt) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		h := mustNew(t, dim, hnsw.Config{M: 4})
		if err := h.Import(entry, clone(), ids, vecs); err != nil {
			t.Fatal(err)
		}
	})
}

func TestGraph_Delete(t *testing.T) {
	n := size(3000, 400)
	const dim = 48
	vecs := clustered(6, n, dim, 30, 0.75)
	ids := seqIDs(n)
	g := mustBuild(t, ids, vecs, hnsw.Config{}, 2)
	entry, _ := g.Entry()
	deleted := map[int64]bool{entry: true}
	rng := rand.New(rand.NewPCG(6, 6))
	for len(deleted) < n/10 {
		deleted[ids[rng.IntN(n)]] = true
	}
	for _, id := range ids { // in a fixed order, for a reproducible graph
		if deleted[id] && !g.Delete(id) {
			t.Fatalf("Delete(%d) = false", id)
		}
	}
	if g.Delete(entry) {
		t.Fatal("second Delete returned true")
	}
	if got, want := g.Len(), n-len(deleted); got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	for _, l := range g.Export() {
		if deleted[l.From] || slices.ContainsFunc(l.To, func(id int64) bool { return deleted[id] }) {
			t.Fatalf("export names a deleted id: %+v", l)
		}
	}
	for i, v := range vecs {
		res, _ := g.Search(v, 5, 0)
		for _, r := range res {
			if deleted[r.ID] {
				t.Fatalf("search returned deleted %d", r.ID)
			}
		}
		if !deleted[ids[i]] && (len(res) == 0 || res[0].ID != ids[i]) {
			t.Fatalf("vector %d not found by itself after deletes: %v", i, res)
		}
	}
	// What is left still exports into a valid graph.
	var liveIDs []int64
	var liveVecs [][]float32
	for i, id := range ids {
		if !deleted[id] {
			liveIDs, liveVecs = append(liveIDs, id), append(liveVecs, vecs[i])
		}
	}
	newEntry, _ := g.Entry()
	h := mustNew(t, dim, hnsw.Config{})
	if err := h.Import(newEntry, g.Export(), liveIDs, liveVecs); err != nil {
		t.Fatal(err)
	}
	// Re-adding reuses slots and works.
	for id := range deleted {
		i := slices.Index(ids, id)
		if err := g.Add(id, vecs[i]); err != nil {
			t.Fatal(err)
		}
		res, _ := g.Search(vecs[i], 1, 0)
		if res[0].ID != id {
			t.Fatalf("re-added %d not found: %v", id, res)
		}
	}
	t.Run("All", func(t *testing.T) {
		g := mustBuild(t, ids[:50], vecs[:50], hnsw.Config{}, 1)
		for _, id := range ids[:50] {
			g.Delete(id)
		}
		if _, ok := g.Entry(); ok || g.EdgeCount() != 0 {
			t.Fatal("graph not empty")
		}
		if err := g.Add(ids[0], vecs[0]); err != nil {
			t.Fatal(err)
		}
		if res, _ := g.Search(vecs[0], 1, 0); len(res) != 1 {
			t.Fatalf("got %v", res)
		}
	})
}

func TestGraph_Concurrent(t *testing.T) {
	const dim = 32
	n := 400
	vecs := clustered(7, 2*n, dim, 10, 0.75)
	ids := seqIDs(2 * n)
	g := mustBuild(t, ids[:n], vecs[:n], hnsw.Config{}, 2)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := n; i < 2*n; i++ {
			if err := g.Add(ids[i], vecs[i]); err != nil {
				t.Error(err)
			}
			if i%10 == 0 {
				g.Delete(ids[i-n])
			}
		}
	})
	for w := range 3 {
		wg.Go(func() {
			for i := range n {
				if _, err := g.Search(vecs[(i*3+w)%len(vecs)], 5, 0); err != nil {
					t.Error(err)
				}
				_ = g.EdgeCount()
			}
		})
	}
	wg.Wait()
}

func TestGraph_BuildProgress(t *testing.T) {
	n := size(1000, 300)
	vecs := clustered(8, n, 16, 10, 0.75)
	var calls, last int
	g := mustNew(t, 16, hnsw.Config{Progress: func(done, total int) {
		calls++
		if done < last || total != n {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	}})
	if err := g.Build(t.Context(), seqIDs(n), vecs, 2); err != nil {
		t.Fatal(err)
	}
	if last != n || calls < 2 {
		t.Fatalf("progress calls %d, last %d", calls, last)
	}
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := contextWithCancel(t)
		cancel()
		g := mustNew(t, 16, hnsw.Config{})
		if err := g.Build(ctx, seqIDs(n), vecs, 2); err == nil {
			t.Fatal("no error from canceled build")
		}
	})
}

func TestRecall(t *testing.T) {
	tests := []struct {
		name       string
		ann, exact [][]int64
		want       float64
	}{
		{"Perfect", [][]int64{{1, 2}}, [][]int64{{2, 1}}, 1},
		{"Half", [][]int64{{1, 3}}, [][]int64{{1, 2}}, 0.5},
		{"MissingQuery", [][]int64{{1}}, [][]int64{{1}, {2}}, 0.5},
		{"Nothing", nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hnsw.Recall(tt.ann, tt.exact); got != tt.want {
				t.Fatalf("Recall = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzUnmarshalBinary(f *testing.F) {
	vecs := clustered(9, 40, 4, 3, 0.5)
	g, _ := hnsw.New(4, hnsw.Config{M: 3})
	_ = g.Build(f.Context(), seqIDs(40), vecs, 1)
	data, _ := g.MarshalBinary()
	f.Add(data)
	empty, _ := hnsw.New(4, hnsw.Config{})
	e, _ := empty.MarshalBinary()
	f.Add(e)
	f.Add([]byte("HNSW\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h hnsw.Graph
		if err := h.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, hnsw.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		out, err := h.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var h2 hnsw.Graph
		if err := h2.UnmarshalBinary(out); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		out2, _ := h2.MarshalBinary()
		if !bytes.Equal(out, out2) {
			t.Fatal("not stable after one round trip")
		}
		if h.Len() > 0 {
			q := make([]float32, h.Dim())
			if _, err := h.Search(q, 3, 0); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func ExampleGraph_Search() {
	g, err := hnsw.New(2, hnsw.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = g.Add(1, []float32{1, 0})
	_ = g.Add(2, []float32{0.6, 0.8})
	_ = g.Add(3, []float32{0, 1})
	res, _ := g.Search([]float32{0, 1}, 2, 0)
	for _, r := range res {
		fmt.Printf("%d %.1f\n", r.ID, r.Score)
	}
	// Output:
	// 3 1.0
	// 2 0.8
}
