package graph_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem/graph"
)

func TestNew(t *testing.T) {
	g := graph.New([]graph.Edge{
		{From: 3, To: 1, Kind: "causal", Weight: 1},
		{From: 3, To: 1, Kind: "causal", Weight: 1}, // duplicate
		{From: 2, To: 2, Kind: "causal", Weight: 1}, // self-loop
		{From: 4, To: 5, Kind: "bad", Weight: math.NaN()},
		{From: 1, To: 5, Kind: "temporal", Weight: 0},
	}, nil)
	if got, want := g.Nodes(), []int64{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("Nodes() = %v, want %v", got, want)
	}
	if got, want := g.Len(), 5; got != want {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
	if got, want := g.EdgeCount(), 2; got != want {
		t.Fatalf("EdgeCount() = %d, want %d", got, want)
	}
	if got, want := g.Kinds(), []string{"causal", "temporal"}; !slices.Equal(got, want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
	if !g.Has(4) || g.Has(9) {
		t.Fatalf("Has(4), Has(9) = %v, %v; want true, false", g.Has(4), g.Has(9))
	}
}

func scores(rs []graph.Rank) map[int64]float64 {
	m := make(map[int64]float64, len(rs))
	for _, r := range rs {
		m[r.ID] = r.Score
	}
	return m
}

func TestPersonalizedPageRank(t *testing.T) {
	ab := []graph.Edge{{From: 1, To: 2, Kind: "causal", Weight: 1}}
	tests := []struct {
		name  string
		edges []graph.Edge
		kinds map[string]float64
		seeds map[int64]float64
		want  map[int64]float64
	}{
		{
			// r1 = 0.5 + 0.5 r2, r2 = 0.5 r1.
			name: "TwoNodes", edges: ab, seeds: map[int64]float64{1: 1},
			want: map[int64]float64{1: 2.0 / 3, 2: 1.0 / 3},
		},
		{
			// The edge direction does not matter.
			name: "Undirected", edges: ab, seeds: map[int64]float64{2: 0.7},
			want: map[int64]float64{2: 2.0 / 3, 1: 1.0 / 3},
		},
		{
			name: "SelfLoopIgnored", seeds: map[int64]float64{1: 1},
			edges: append(slices.Clone(ab), graph.Edge{From: 1, To: 1, Kind: "causal", Weight: 5}),
			want:  map[int64]float64{1: 2.0 / 3, 2: 1.0 / 3},
		},
		{
			name: "UnknownSeedKeepsItsMass", edges: ab, seeds: map[int64]float64{99: 1},
			want: map[int64]float64{99: 1},
		},
		{
			// Node 3 is dangling (its only edge has a kind of weight 0):
			// its mass returns to the seeds. r3 = 0.5 (0.5 + 0.5 r3) gives
			// 1/3; r1 = 0.5 (0.5 + 0.5 r3) + 0.5 r2 and r2 = 0.5 r1.
			name:  "DanglingReturnsToSeeds",
			edges: append(slices.Clone(ab), graph.Edge{From: 3, To: 4, Kind: "ignored", Weight: 1}),
			kinds: map[string]float64{"causal": 1},
			seeds: map[int64]float64{1: 1, 3: 1},
			want:  map[int64]float64{1: 4.0 / 9, 2: 2.0 / 9, 3: 1.0 / 3},
		},
		{
			// A 3-cycle seeded at 1: converges and terminates.
			name: "Cycle", seeds: map[int64]float64{1: 1},
			edges: []graph.Edge{
				{From: 1, To: 2, Kind: "causal", Weight: 1},
				{From: 2, To: 3, Kind: "causal", Weight: 1},
				{From: 3, To: 1, Kind: "causal", Weight: 1},
			},
			// r1 = 0.5 + 0.5 r2 (r2 = r3 by symmetry), r2 = 0.25 r1 + 0.25 r2.
			want: map[int64]float64{1: 0.6, 2: 0.2, 3: 0.2},
		},
		{
			name: "KindWeightsScale", seeds: map[int64]float64{1: 1},
			edges: []graph.Edge{
				{From: 1, To: 2, Kind: "causal", Weight: 1},
				{From: 1, To: 3, Kind: "similar_to", Weight: 1},
			},
			kinds: graph.DefaultKindWeights(),
			// From 1: 2/3 of the walk goes to 2 and 1/3 to 3; both come back.
			// r1 = 0.5 + 0.5 (r2 + r3), r2 = 0.5 r1 2/3, r3 = 0.5 r1 1/3.
			want: map[int64]float64{1: 2.0 / 3, 2: 2.0 / 9, 3: 1.0 / 9},
		},
		{name: "NoSeeds", edges: ab, seeds: nil, want: map[int64]float64{}},
		{
			name: "UnusableSeedWeights", edges: ab,
			seeds: map[int64]float64{1: math.NaN(), 2: -1, 3: math.Inf(1), 4: 0},
			want:  map[int64]float64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(tt.edges, tt.kinds)
			got := scores(graph.PersonalizedPageRank(g, tt.seeds, graph.PPROptions{}))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for id, w := range tt.want {
				if math.Abs(got[id]-w) > 1e-8 {
					t.Errorf("score[%d] = %.10f, want %.10f", id, got[id], w)
				}
			}
		})
	}
}

func TestPersonalizedPageRank_TiesByID(t *testing.T) {
	var edges []graph.Edge
	for _, leaf := range []int64{9, 4, 7, 2} {
		edges = append(edges, graph.Edge{From: 5, To: leaf, Kind: "causal", Weight: 1})
	}
	got := graph.PersonalizedPageRank(graph.New(edges, nil), map[int64]float64{5: 1}, graph.PPROptions{})
	var ids []int64
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if want := []int64{5, 2, 4, 7, 9}; !slices.Equal(ids, want) {
		t.Fatalf("order = %v, want %v", ids, want)
	}
}

// randomGraph returns a connected-ish graph of n nodes with about deg
// random edges per node, ids 1..n.
func randomGraph(rng *rand.Rand, n, deg int) []graph.Edge {
	kinds := []string{"causal", "similar_to", "temporal", "supersedes"}
	edges := make([]graph.Edge, 0, n*deg)
	for i := range n * deg {
		from := int64(i/deg) + 1
		to := rng.Int64N(int64(n)) + 1
		edges = append(edges, graph.Edge{From: from, To: to, Kind: kinds[rng.IntN(len(kinds))], Weight: 0.5 + rng.Float64()})
	}
	return edges
}

func TestPersonalizedPageRank_Deterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := randomGraph(rng, 500, 4)
	seeds := map[int64]float64{3: 0.9, 77: 0.5, 400: 0.2}
	want := graph.PersonalizedPageRank(graph.New(edges, graph.DefaultKindWeights()), seeds, graph.PPROptions{})
	sum := 0.0
	for _, r := range want {
		sum += r.Score
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Fatalf("scores sum to %v, want 1", sum)
	}
	for i := range 3 {
		rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
		got := graph.PersonalizedPageRank(graph.New(edges, graph.DefaultKindWeights()), seeds, graph.PPROptions{})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d: ranking differs", i)
		}
	}
}

func TestPersonalizedPageRank_Hops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	edges := randomGraph(rng, 3000, 3)
	g := graph.New(edges, graph.DefaultKindWeights())
	seeds := map[int64]float64{10: 1, 20: 0.5}
	exact := scores(graph.PersonalizedPageRank(g, seeds, graph.PPROptions{}))
	const hops = 2
	local := graph.PersonalizedPageRank(g, seeds, graph.PPROptions{Hops: hops})

	within := map[int64]bool{10: true, 20: true}
	for _, p := range append(graph.Chain(g, 10, nil, graph.Both, hops), graph.Chain(g, 20, nil, graph.Both, hops)...) {
		within[p.End()] = true
	}
	sum := 0.0
	for _, r := range local {
		if !within[r.ID] {
			t.Fatalf("node %d is beyond %d hops but has score %v", r.ID, hops, r.Score)
		}
		if r.Score > exact[r.ID]+1e-9 {
			t.Fatalf("node %d: local score %v above exact %v", r.ID, r.Score, exact[r.ID])
		}
		sum += r.Score
	}
	if bound := 1 - math.Pow(graph.DefaultDamping, hops+1); sum < bound-1e-6 {
		t.Fatalf("local mass %v below the documented bound %v", sum, bound)
	}
	t.Logf("hops=%d: %d of %d nodes, mass kept %.4f", hops, len(local), g.Len(), sum)
}

func TestPersonalizedPageRank_Limit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := graph.New(randomGraph(rng, 300, 3), nil)
	seeds := map[int64]float64{1: 1, 2: 1}
	all := graph.PersonalizedPageRank(g, seeds, graph.PPROptions{})
	for _, limit := range []int{1, 7, 50, 10000} {
		got := graph.PersonalizedPageRank(g, seeds, graph.PPROptions{Limit: limit})
		if want := all[:min(limit, len(all))]; !reflect.DeepEqual(got, want) {
			t.Fatalf("Limit %d: got %v, want %v", limit, got, want)
		}
	}
}

func formatPath(p graph.Path) string {
	var b strings.Builder
	fmt.Fprint(&b, p.IDs[0])
	for i, h := range p.Hops {
		if h.Backward {
			fmt.Fprintf(&b, " <%s %d", h.Kind, p.IDs[i+1])
		} else {
			fmt.Fprintf(&b, " %s> %d", h.Kind, p.IDs[i+1])
		}
	}
	return b.String()
}

func TestChain(t *testing.T) {
	// Issues 1 and 2 are fixed by PR 10, which landed as commit 100; 101
	// followed 100 in time and 101 -> 1 closes a causal cycle. 5 is
	// unrelated.
	g := graph.New([]graph.Edge{
		{From: 1, To: 10, Kind: "causal", Weight: 1},
		{From: 2, To: 10, Kind: "causal", Weight: 1},
		{From: 10, To: 100, Kind: "causal", Weight: 1},
		{From: 100, To: 101, Kind: "temporal", Weight: 1},
		{From: 101, To: 1, Kind: "causal", Weight: 1},
		{From: 5, To: 6, Kind: "causal", Weight: 1},
	}, nil)
	tests := []struct {
		name     string
		start    int64
		kinds    []string
		dir      graph.Direction
		maxDepth int
		want     []string
	}{
		{
			name: "ForwardCausal", start: 1, kinds: []string{"causal"}, dir: graph.Forward,
			want: []string{"1 causal> 10", "1 causal> 10 causal> 100"},
		},
		{
			name: "BackwardCausal", start: 100, kinds: []string{"causal"}, dir: graph.Backward,
			want: []string{"100 <causal 10", "100 <causal 10 <causal 1", "100 <causal 10 <causal 2", "100 <causal 10 <causal 1 <causal 101"},
		},
		{
			name: "ForwardAllKindsCycle", start: 1, dir: graph.Forward,
			want: []string{"1 causal> 10", "1 causal> 10 causal> 100", "1 causal> 10 causal> 100 temporal> 101"},
		},
		{
			name: "BothReachesSiblings", start: 2, kinds: []string{"causal"}, dir: graph.Both, maxDepth: 2,
			want: []string{"2 causal> 10", "2 causal> 10 <causal 1", "2 causal> 10 causal> 100"},
		},
		{
			name: "ZeroDirectionIsBoth", start: 2, kinds: []string{"causal"}, maxDepth: 2,
			want: []string{"2 causal> 10", "2 causal> 10 <causal 1", "2 causal> 10 causal> 100"},
		},
		{
			name: "MaxDepth", start: 1, dir: graph.Forward, maxDepth: 1,
			want: []string{"1 causal> 10"},
		},
		{name: "KindNotPresent", start: 1, kinds: []string{"similar_to"}, dir: graph.Both},
		{name: "UnknownStart", start: 42, dir: graph.Both},
		{name: "Isolated", start: 6, dir: graph.Forward},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range graph.Chain(g, tt.start, tt.kinds, tt.dir, tt.maxDepth) {
				if p.IDs[0] != tt.start || p.Depth() != len(p.IDs)-1 {
					t.Fatalf("malformed path %+v", p)
				}
				got = append(got, formatPath(p))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestDirection_String(t *testing.T) {
	for d, want := range map[graph.Direction]string{graph.Forward: "forward", graph.Backward: "backward", graph.Both: "both", 0: "both"} {
		if got := d.String(); got != want {
			t.Errorf("Direction(%d).String() = %q, want %q", d, got, want)
		}
	}
}

// FuzzPersonalizedPageRank builds graphs from arbitrary bytes and checks
// that PageRank and Chain never panic and keep their invariants.
func FuzzPersonalizedPageRank(f *testing.F) {
	f.Add([]byte{1, 2, 0, 10, 2, 3, 1, 20, 3, 1, 2, 255}, uint8(1), uint8(0))
	f.Add([]byte{5, 5, 0, 1}, uint8(5), uint8(2))
	f.Add([]byte{}, uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, seed uint8, hops uint8) {
		kinds := []string{"causal", "similar_to", "temporal", "other"}
		var edges []graph.Edge
		for i := 0; i+3 < len(data); i += 4 {
			edges = append(edges, graph.Edge{
				From: int64(data[i] % 16), To: int64(data[i+1] % 16),
				Kind: kinds[data[i+2]%4], Weight: float64(data[i+3]) / 64,
			})
		}
		g := graph.New(edges, graph.DefaultKindWeights())
		seeds := map[int64]float64{int64(seed % 16): 1, int64(seed%16) + 1: 0.5}
		rs := graph.PersonalizedPageRank(g, seeds, graph.PPROptions{Hops: int(hops % 4)})
		sum := 0.0
		for i, r := range rs {
			if !(r.Score > 0) || math.IsInf(r.Score, 0) {
				t.Fatalf("bad score %v", r)
			}
			if i > 0 && (rs[i-1].Score < r.Score || (rs[i-1].Score == r.Score && rs[i-1].ID > r.ID)) {
				t.Fatalf("not sorted at %d: %v", i, rs)
			}
			sum += r.Score
		}
		if sum > 1+1e-6 {
			t.Fatalf("mass %v > 1", sum)
		}
		seen := map[int64]bool{}
		for _, p := range graph.Chain(g, int64(seed%16), nil, graph.Both, 0) {
			if seen[p.End()] || p.End() == int64(seed%16) {
				t.Fatalf("node %d reached twice", p.End())
			}
			seen[p.End()] = true
		}
	})
}

func ExamplePersonalizedPageRank() {
	// Notes 1..3 all link to hub 9; the query's top semantic hits are 1 and 2.
	g := graph.New([]graph.Edge{
		{From: 1, To: 9, Kind: "causal", Weight: 1},
		{From: 2, To: 9, Kind: "causal", Weight: 1},
		{From: 3, To: 9, Kind: "causal", Weight: 1},
	}, graph.DefaultKindWeights())
	for _, r := range graph.PersonalizedPageRank(g, map[int64]float64{1: 0.8, 2: 0.7}, graph.PPROptions{}) {
		fmt.Printf("%d %.3f\n", r.ID, r.Score)
	}
	// Output:
	// 9 0.333
	// 1 0.322
	// 2 0.289
	// 3 0.056
}

func ExampleChain() {
	g := graph.New([]graph.Edge{
		{From: 4409, To: 4410, Kind: "causal", Weight: 1}, // issue -> fixing PR
		{From: 4410, To: 7001, Kind: "causal", Weight: 1}, // PR -> merge commit
	}, nil)
	for _, p := range graph.Chain(g, 4410, []string{"causal"}, graph.Backward, 0) {
		fmt.Println("cause:", p.IDs)
	}
	for _, p := range graph.Chain(g, 4410, []string{"causal"}, graph.Forward, 0) {
		fmt.Println("effect:", p.IDs)
	}
	// Output:
	// cause: [4410 4409]
	// effect: [4410 7001]
}
