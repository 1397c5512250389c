package hrr

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestKey_sum_SWAR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var q [Dim]byte
		c := make([]byte, Dim)
		for i := range q {
			q[i] = byte(rng.UintN(256))
			c[i] = byte(rng.UintN(256))
		}
		// Hit the borrow edge cases: equal bytes, 0 − 255, 255 − 0.
		c[0], q[0] = 0, 255
		c[1], q[1] = 255, 0
		c[2], q[2] = 7, 7
		var want int32
		for i := range q {
			want += cosLUT[c[i]-q[i]]
		}
		if got := keyOf(&q).sum(c); got != want {
			t.Fatalf("sum = %d, want %d", got, want)
		}
	}
}

func TestQuantize16(t *testing.T) {
	for _, tt := range []struct {
		in   uint16
		want uint8
	}{
		{0, 0}, {127, 0}, {128, 1}, {256, 1}, {0xff7f, 255}, {0xff80, 0}, {0xffff, 0},
	} {
		if got := quantize16(tt.in); got != tt.want {
			t.Errorf("quantize16(%#x) = %d, want %d", tt.in, got, tt.want)
		}
	}
	// quantize16 must agree with quantize on the same angle.
	for p := 0; p < 1<<16; p += 37 {
		if a, b := quantize16(uint16(p)), quantize(float64(p)*radPerUnit16); a != b {
			t.Fatalf("phase %d: quantize16 = %d, quantize = %d", p, a, b)
		}
	}
}

func TestAtomCache_Bounded(t *testing.T) {
	c := newAtomCache(8)
	for i := range 100 {
		c.get(fmt.Sprint("tok", i))
		if n := c.len(); n > 8 {
			t.Fatalf("after %d inserts the cache holds %d atoms, want <= 8", i+1, n)
		}
	}
	// A hot token survives generations.
	hot := c.get("hot")
	for i := range 100 {
		c.get(fmt.Sprint("other", i))
		if got := c.get("hot"); got != hot {
			t.Fatalf("hot atom was evicted after %d inserts", i+1)
		}
	}
	if got, want := *c.get("tok1"), *deriveAtom("tok1"); got != want {
		t.Fatal("re-derived atom differs")
	}
}

func TestAccumulator_MatchesBundle(t *testing.T) {
	toks := []string{"a", "b", "c", "d"}
	vs := make([]Vector, len(toks))
	ws := []float64{1, 2, 0.5, 3}
	acc := newAccumulator(cos16())
	for i, tok := range toks {
		vs[i] = Bind(Atom(tok), RoleEntity())
		acc.addBound(atoms.get(tok), roleEntity, ws[i])
	}
	want := BundleWeighted(vs, ws)
	got := acc.vector()
	if s := Similarity(got, want); s < 0.999999 {
		t.Fatalf("accumulator vs BundleWeighted similarity %v, want ~1", s)
	}
}

// capacity is what measureCapacity found for one bundle size.
type capacity struct {
	k                   int
	dprime              float64 // (mean member − mean non-member) / pooled sd
	perfect             float64 // fraction of probes with min member > max non-member
	member, nonMemberMx float64 // mean member score, mean over probes of the max non-member score
	rprec               float64 // mean over probes of the fraction of the top |members| that are members
}

// measureCapacity builds nFacts bundles of k equal-weight atoms: one of
// nProbes probe atoms (so each probe has nFacts/nProbes members) and k−1
// distinct fillers from a pool of 5,000 atoms. It probes each probe atom over
// the compact vectors, as [Probe] does.
func measureCapacity(k, nFacts, nProbes int) capacity {
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	pool := make([]*phase16, 5000)
	for i := range pool {
		pool[i] = atoms.get(fmt.Sprint("filler-", i))
	}
	probes := make([]*phase16, nProbes)
	keys := make([]*Key, nProbes)
	for i := range probes {
		probes[i] = deriveAtom(fmt.Sprint("probe-", i))
		var q [Dim]byte
		for j := range q {
			q[j] = quantize16(probes[i][j])
		}
		keys[i] = keyOf(&q)
	}
	var zero phase16
	facts := make([][]byte, nFacts)
	owner := make([]int, nFacts)
	for f := range facts {
		acc := newAccumulator(cos16())
		owner[f] = f % nProbes
		acc.addBound(probes[owner[f]], &zero, 1)
		for _, j := range rng.Perm(len(pool))[:k-1] {
			acc.addBound(pool[j], &zero, 1)
		}
		facts[f] = Marshal(acc.vector())
	}

	res := capacity{k: k}
	var mSum, mSq, nSum, nSq float64
	var mN, nN int
	for p, key := range keys {
		minM, maxN := math.Inf(1), math.Inf(-1)
		var scored []Scored
		for f, c := range facts {
			s := key.Score(c)
			scored = append(scored, Scored{int64(f), s})
			if owner[f] == p {
				minM = min(minM, s)
				mSum, mSq, mN = mSum+s, mSq+s*s, mN+1
			} else {
				maxN = max(maxN, s)
				nSum, nSq, nN = nSum+s, nSq+s*s, nN+1
			}
		}
		if minM > maxN {
			res.perfect++
		}
		res.nonMemberMx += maxN
		top := rank(scored, nFacts/nProbes)
		for _, h := range top {
			if owner[h.ID] == p {
				res.rprec += 1 / float64(len(top))
			}
		}
	}
	res.rprec /= float64(nProbes)
	res.perfect /= float64(nProbes)
	res.nonMemberMx /= float64(nProbes)
	mMean, nMean := mSum/float64(mN), nSum/float64(nN)
	mVar, nVar := mSq/float64(mN)-mMean*mMean, nSq/float64(nN)-nMean*nMean
	res.member = mMean
	res.dprime = (mMean - nMean) / math.Sqrt((mVar+nVar)/2)
	return res
}

// TestCapacity checks, at a size the race detector can afford, that small
// bundles separate perfectly and that separation degrades with size the way
// the package documentation says. BenchmarkCapacity prints the full table.
func TestCapacity(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow; BenchmarkCapacity prints the full table")
	}
	small := measureCapacity(10, 300, 10)
	big := measureCapacity(400, 300, 10)
	t.Logf("k=10: %+v", small)
	t.Logf("k=400: %+v", big)
	if small.perfect != 1 {
		t.Errorf("k=10: perfect fraction %v, want 1", small.perfect)
	}
	if small.dprime < 8 {
		t.Errorf("k=10: d' %v, want >= 8", small.dprime)
	}
	// Theory: d' ≈ 0.886·sqrt(2·Dim/k) = 2.0 at k=400.
	if big.dprime < 1.2 || big.dprime > 3 {
		t.Errorf("k=400: d' %v, want about 2", big.dprime)
	}
}

// BenchmarkCapacity measures member/non-member separation for bundles of k
// equal-weight items at 2,000 facts and 20 probes (100 members each). Run
// with -benchtime=1x; the table in doc.go comes from it.
func BenchmarkCapacity(b *testing.B) {
	for _, k := range []int{10, 25, 50, 100, 200, 400} {
		b.Run(fmt.Sprint("k=", k), func(b *testing.B) {
			var r capacity
			for b.Loop() {
				r = measureCapacity(k, 2000, 20)
			}
			b.ReportMetric(r.dprime, "d'")
			b.ReportMetric(r.perfect, "perfect")
			b.ReportMetric(r.member, "member")
			b.ReportMetric(r.nonMemberMx, "maxnon")
			b.ReportMetric(r.rprec, "rprec")
		})
	}
}

// TestAtomCache_Concurrent hammers the cache from several goroutines; run
// under -race it checks the locking, and every caller must see the same
// phases.
func TestAtomCache_Concurrent(t *testing.T) {
	c := newAtomCache(16)
	want := make([]*phase16, 40)
	for i := range want {
		want[i] = deriveAtom(fmt.Sprint("c", i))
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 200 {
				j := (i*7 + g) % len(want)
				if *c.get(fmt.Sprint("c", j)) != *want[j] {
					done <- fmt.Errorf("goroutine %d: atom c%d differs", g, j)
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if n := c.len(); n > 16 {
		t.Errorf("cache holds %d atoms, want <= 16", n)
	}
}

// TestQueryKey checks that QueryKey, which quantises without an arc
// tangent, gives the key of NewKey(EncodeQuery(...)) on random queries.
func TestQueryKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 300 {
		var toks, ents []string
		for range r.IntN(8) {
			toks = append(toks, fmt.Sprintf("w%d", r.IntN(5000)))
		}
		for range r.IntN(3) {
			ents = append(ents, fmt.Sprintf("E%d", r.IntN(300)))
		}
		if got, want := QueryKey(toks, ents), NewKey(EncodeQuery(toks, ents)); *got != *want {
			t.Fatalf("query %d (%v, %v): QueryKey differs from NewKey(EncodeQuery)", i, toks, ents)
		}
	}
}

// TestEncodeFactCompact checks the compact encoder against Marshal of the
// float64 one on random facts and on the phases around every bin edge.
func TestEncodeFactCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	n := 1000
	if testing.Short() || raceEnabled {
		n = 100
	}
	diff := 0
	for i := range n {
		var toks, ents []string
		for range 1 + r.IntN(40) {
			toks = append(toks, fmt.Sprintf("w%d", r.IntN(5000)))
		}
		for range r.IntN(4) {
			ents = append(ents, fmt.Sprintf("E%d", r.IntN(300)))
		}
		want, got := Marshal(EncodeFact(toks, ents)), EncodeFactCompact(toks, ents)
		for j := range want {
			if want[j] != got[j] {
				diff++
				if diff < 5 {
					t.Errorf("fact %d byte %d: compact %d, Marshal %d", i, j, got[j], want[j])
				}
			}
		}
	}
	if diff > 0 {
		t.Errorf("%d of %d bytes differ", diff, n*EncodedLen)
	}
	if got := EncodeFactCompact(nil, nil); !bytes.Equal(got, Marshal(EncodeFact(nil, nil))) {
		t.Errorf("empty fact: %v", got[:8])
	}
	// Angles next to every bin edge, in every octant, and the axes.
	for k := range 512 {
		for _, eps := range []float64{-1e-9, 1e-9} { // exactly on an edge either neighbour is right
			th := float64(k)*quantum/2 + eps
			for _, mag := range []float64{1e-300, 1e-3, 1, 7.5, 1e300} {
				re, im := mag*math.Cos(th), mag*math.Sin(th)
				if got, want := phaseByte(re, im), quantize(math.Atan2(im, re)); got != want {
					t.Errorf("phaseByte(%g, %g) = %d, want %d (angle %g)", re, im, got, want, th)
				}
			}
		}
	}
	for _, c := range [][2]float64{{0, 0}, {math.Copysign(0, -1), math.Copysign(0, -1)}, {-1, 0}, {-1, math.Copysign(0, -1)}, {0, -1}, {0, 1}, {math.Copysign(0, -1), 1}, {math.Inf(1), 1}, {math.NaN(), 1}} {
		if got, want := phaseByte(c[0], c[1]), quantize(math.Atan2(c[1], c[0])); got != want {
			t.Errorf("phaseByte(%v, %v) = %d, want %d", c[0], c[1], got, want)
		}
	}
}
