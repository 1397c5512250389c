package hrr_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/holomem/holomem/hrr"
)

// corpus is a deterministic synthetic memory: facts with content tokens from
// a 5,000-word vocabulary and 1-4 entities from 300 names, skewed so a few
// entities are in hundreds of facts and most in a handful.
type corpus struct {
	items    []hrr.Item
	vectors  []hrr.Vector
	entities [][]string         // per fact
	byEntity map[string][]int64 // entity -> fact ids, ascending
	names    []string           // all 300 entity names
}

// corpus2000 is the 2,000-fact corpus the proofs share (read-only). Under
// -race, where the vector loops run 20-50 times slower and the point is
// finding data races rather than proving capacity, it has 400 facts (the
// whole hrr suite took over 10 minutes under -race on 2 busy cores).
var corpus2000 = sync.OnceValue(func() *corpus {
	if hrr.RaceEnabled {
		return newCorpus(400)
	}
	return newCorpus(2000)
})

func newCorpus(nFacts int) *corpus {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &corpus{byEntity: map[string][]int64{}}
	for i := range 300 {
		c.names = append(c.names, fmt.Sprintf("entity%03d", i))
	}
	for id := range int64(nFacts) {
		toks := make([]string, 5+rng.IntN(21))
		for i := range toks {
			toks[i] = fmt.Sprintf("w%04d", rng.IntN(5000))
		}
		set := map[string]bool{}
		for n := 1 + rng.IntN(4); len(set) < n; {
			u := rng.Float64()
			set[c.names[int(300*u*u)]] = true
		}
		ents := slices.Sorted(maps.Keys(set))
		v := hrr.EncodeFact(toks, ents)
		c.vectors = append(c.vectors, v)
		c.items = append(c.items, hrr.Item{ID: id, HRR: hrr.Marshal(v)})
		c.entities = append(c.entities, ents)
		for _, e := range ents {
			c.byEntity[e] = append(c.byEntity[e], id)
		}
	}
	return c
}

// byFrequency returns entity names, most facts first (ties by name).
func (c *corpus) byFrequency() []string {
	es := slices.Collect(maps.Keys(c.byEntity))
	sort.Slice(es, func(i, j int) bool {
		a, b := len(c.byEntity[es[i]]), len(c.byEntity[es[j]])
		if a != b {
			return a > b
		}
		return es[i] < es[j]
	})
	return es
}

func ids(s []hrr.Scored) []int64 {
	out := make([]int64, len(s))
	for i, x := range s {
		out[i] = x.ID
	}
	return out
}

// probeEntities picks entities across the frequency range: the most
// frequent, some in the middle and the rarest.
func probeEntities(c *corpus) []string {
	es := c.byFrequency()
	var out []string
	picks := []int{0, 1, 2, 5, 10, 30, 60, 100, 150, 200, len(es) - 2, len(es) - 1}
	if hrr.RaceEnabled {
		picks = []int{0, 10, len(es) - 1}
	}
	for _, i := range picks {
		if i >= 0 && i < len(es) {
			out = append(out, es[i])
		}
	}
	return out
}

// TestProbe_Separates is the proof that probe is not noise: at 2,000 facts,
// for entities from the most frequent to the rarest, every fact that holds X
// scores above every fact that does not, and the default noise floor cuts
// exactly between them.
func TestProbe_Separates(t *testing.T) {
	c := corpus2000()
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	worst := math.Inf(1)
	for _, x := range probeEntities(c) {
		members := c.byEntity[x]
		all := hrr.Probe(hrr.ProbeKey(x), c.items, -1, 0)
		if got, want := len(all), len(c.items); got != want {
			t.Fatalf("probe(%s) with floor -1 returned %d facts, want %d", x, got, want)
		}
		isMember := map[int64]bool{}
		for _, id := range members {
			isMember[id] = true
		}
		minM, maxN := math.Inf(1), math.Inf(-1)
		for _, s := range all {
			if isMember[s.ID] {
				minM = min(minM, s.Score)
			} else {
				maxN = max(maxN, s.Score)
			}
		}
		t.Logf("probe(%s): %4d members, min member %.3f, max non-member %.3f", x, len(members), minM, maxN)
		if minM <= maxN {
			t.Errorf("probe(%s): min member score %.4f <= max non-member score %.4f", x, minM, maxN)
		}
		worst = min(worst, minM-maxN)

		got := ids(hrr.Probe(hrr.ProbeKey(x), c.items, floor, 0))
		slices.Sort(got)
		if !slices.Equal(got, members) {
			t.Errorf("probe(%s) above the noise floor = %d facts, want the %d members", x, len(got), len(members))
		}
	}
	t.Logf("smallest margin %.3f (noise floor %.3f)", worst, floor)
}

// cooccurring returns pairs of entities that share at least one fact, with
// the shared fact ids, most shared first.
func cooccurring(c *corpus) (pairs [][2]string, both map[[2]string][]int64) {
	both = map[[2]string][]int64{}
	for id, es := range c.entities {
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				p := [2]string{es[i], es[j]}
				both[p] = append(both[p], int64(id))
			}
		}
	}
	pairs = slices.Collect(maps.Keys(both))
	sort.Slice(pairs, func(i, j int) bool {
		a, b := len(both[pairs[i]]), len(both[pairs[j]])
		if a != b {
			return a > b
		}
		return pairs[i][0]+pairs[i][1] < pairs[j][0]+pairs[j][1]
	})
	return pairs, both
}

// TestReason_Intersection: reason(X, Y) ranks exactly the facts holding both
// first, and the noise floor returns exactly them.
func TestReason_Intersection(t *testing.T) {
	c := corpus2000()
	pairs, both := cooccurring(c)
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	picked := append(pairs[:8:8], pairs[len(pairs)-4:]...)
	if hrr.RaceEnabled {
		picked = append(pairs[:2:2], pairs[len(pairs)-1])
	}
	for _, p := range picked {
		want := both[p]
		keys := []*hrr.Key{hrr.ProbeKey(p[0]), hrr.ProbeKey(p[1])}
		all := hrr.Reason(keys, c.items, -1, 0)
		top := ids(all[:len(want)])
		slices.Sort(top)
		if !slices.Equal(top, want) {
			t.Errorf("reason(%s, %s): top %d = %v, want %v", p[0], p[1], len(want), top, want)
		}
		got := ids(hrr.Reason(keys, c.items, floor, 0))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("reason(%s, %s) above the floor = %v, want %v", p[0], p[1], got, want)
		}
		t.Logf("reason(%s, %s): %d facts, last %.3f, next %.3f", p[0], p[1], len(want),
			all[len(want)-1].Score, all[len(want)].Score)
	}

	// Three entities: a fact holding all three exists for the first triple found.
	for id, es := range c.entities {
		if len(es) < 3 {
			continue
		}
		var want []int64
		for j, fs := range c.entities {
			if slices.Contains(fs, es[0]) && slices.Contains(fs, es[1]) && slices.Contains(fs, es[2]) {
				want = append(want, int64(j))
			}
		}
		keys := []*hrr.Key{hrr.ProbeKey(es[0]), hrr.ProbeKey(es[1]), hrr.ProbeKey(es[2])}
		got := ids(hrr.Reason(keys, c.items, floor, 0))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("reason(%v) (from fact %d) = %v, want %v", es[:3], id, got, want)
		}
		break
	}
	if got := hrr.Reason(nil, c.items, floor, 0); got != nil {
		t.Errorf("reason() = %v, want nil", got)
	}
}

// TestRelated_CoOccurring: related(X) finds exactly the entities that share
// a fact with X, each with the number of facts they share.
func TestRelated_CoOccurring(t *testing.T) {
	c := corpus2000()
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	xs := probeEntities(c)
	xs = xs[:min(8, len(xs))]
	if hrr.RaceEnabled {
		xs = xs[1:2] // skip the hubs: hundreds of facts × 300 candidates
	}
	for _, x := range xs {
		want := map[string]int{}
		for _, id := range c.byEntity[x] {
			for _, e := range c.entities[id] {
				if e != x {
					want[e]++
				}
			}
		}
		got := hrr.Related(x, c.items, c.names, floor, 0)
		gotCount := map[string]int{}
		for _, g := range got {
			gotCount[g.Entity] = g.Facts
		}
		if !maps.Equal(gotCount, want) {
			t.Errorf("related(%s): got %v, want %v", x, gotCount, want)
		}
		// The strongest connection is one of the most frequent co-occurrers.
		if len(got) > 0 {
			most := 0
			for _, n := range want {
				most = max(most, n)
			}
			if want[got[0].Entity] < most/2 {
				t.Errorf("related(%s): top %s shares %d facts, the most is %d", x, got[0].Entity, want[got[0].Entity], most)
			}
			t.Logf("related(%s): %d entities, top %s (%d facts, score %.2f)", x, len(got), got[0].Entity, got[0].Facts, got[0].Score)
		}
		if slices.ContainsFunc(got, func(cn hrr.Connection) bool { return cn.Entity == x }) {
			t.Errorf("related(%s) returned %s itself", x, x)
		}
	}
	if got := hrr.Related("nobody", c.items, c.names, floor, 0); got != nil {
		t.Errorf("related(nobody) = %v, want nil", got)
	}
	if got := hrr.Related(c.names[0], c.items, c.names, floor, 3); len(got) > 3 {
		t.Errorf("related with limit 3 returned %d", len(got))
	}
}

func TestProbe_Deterministic(t *testing.T) {
	c := corpus2000()
	x := c.byFrequency()[0]
	items := c.items[:300]
	a := hrr.Probe(hrr.ProbeKey(x), items, -1, 50)
	// Reverse the input: ranking must not depend on input order.
	rev := slices.Clone(items)
	slices.Reverse(rev)
	b := hrr.Probe(hrr.ProbeKey(x), rev, -1, 50)
	if !slices.Equal(a, b) {
		t.Fatal("probe ranking depends on input order")
	}
	if len(a) != 50 {
		t.Fatalf("limit 50 returned %d", len(a))
	}
	for i := 1; i < len(a); i++ {
		if a[i-1].Score < a[i].Score || a[i-1].Score == a[i].Score && a[i-1].ID > a[i].ID {
			t.Fatalf("not ranked at %d: %v then %v", i, a[i-1], a[i])
		}
	}
}

func TestProbe_SkipsMalformed(t *testing.T) {
	v := hrr.EncodeFact([]string{"a"}, []string{"x"})
	items := []hrr.Item{
		{ID: 1, HRR: hrr.Marshal(v)},
		{ID: 2, HRR: nil},
		{ID: 3, HRR: []byte{9, 9, 9}},
		{ID: 4, HRR: append([]byte{99}, hrr.Marshal(v)[1:]...)},
	}
	got := hrr.Probe(hrr.ProbeKey("x"), items, -2, 0)
	if len(got) != 1 || got[0].ID != 1 {
		t.Fatalf("probe over malformed items = %v, want only id 1", got)
	}
	if got := hrr.Related("x", items, []string{"y"}, -2, 0); len(got) != 1 {
		t.Fatalf("related over malformed items = %v, want one candidate", got)
	}
}

// TestEncodeFact_ManyEntities measures how probe holds up as a fact gets
// more entities: each entity's share of the power is 1/(2n).
func TestEncodeFact_ManyEntities(t *testing.T) {
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	toks := make([]string, 20)
	for i := range toks {
		toks[i] = fmt.Sprint("t", i)
	}
	for _, n := range []int{1, 2, 4, 8, 16} {
		ents := make([]string, n)
		for i := range ents {
			ents[i] = fmt.Sprint("e", i)
		}
		b := hrr.Marshal(hrr.EncodeFact(toks, ents))
		lo := math.Inf(1)
		for _, e := range ents {
			lo = min(lo, hrr.ProbeKey(e).Score(b))
		}
		t.Logf("%2d entities: weakest member %.3f", n, lo)
		if lo < floor {
			t.Errorf("%d entities: a member scores %.3f, below the floor %.3f", n, lo, floor)
		}
	}
}
