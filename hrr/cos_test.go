package hrr

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tables that force an accumulator's path, whatever boundAtoms says.
var (
	forceDirect = func(int) *[1 << phaseBits]float64 { return nil }
	forceTable  = func(int) *[1 << phaseBits]float64 { return cos16() }
)

// firstBitDiff returns the first component where a and b differ in bits
// (so -0 ≠ +0), or -1.
func firstBitDiff(a, b *[Dim]float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// sameSums fails t unless x and y hold bit-identical sums.
func sameSums(t *testing.T, what string, x, y *accumulator) {
	t.Helper()
	if i := firstBitDiff(&x.re, &y.re); i >= 0 {
		t.Fatalf("%s: re[%d] = %v vs %v", what, i, x.re[i], y.re[i])
	}
	if i := firstBitDiff(&x.im, &y.im); i >= 0 {
		t.Fatalf("%s: im[%d] = %v vs %v", what, i, x.im[i], y.im[i])
	}
}

func TestCos16_IsCosPhase(t *testing.T) {
	tab := cos16()
	for k := range tab {
		if got, want := math.Float64bits(tab[k]), math.Float64bits(cosPhase(uint16(k))); got != want {
			t.Fatalf("cos16[%d] = %#x, cosPhase = %#x", k, got, want)
		}
	}
	// Spot-check the quarter turns, so a wrong radPerUnit16 cannot pass.
	for _, tt := range []struct {
		k    uint16
		want float64
	}{{0, 1}, {1 << 15, -1}} {
		if got := tab[tt.k]; got != tt.want {
			t.Errorf("cos16[%d] = %v, want %v", tt.k, got, tt.want)
		}
	}
	if got := tab[quarter]; math.Abs(got) > 1e-15 {
		t.Errorf("cos16[quarter] = %v, want ~0", got)
	}
}

// randomTerms returns n random terms drawn from a vocabulary of 300, so
// lists repeat terms (distinct must drop them) and differ in case.
func randomTerms(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint("term-", rng.IntN(300))
		if rng.IntN(4) == 0 {
			out[i] = fmt.Sprint("Term-", rng.IntN(300))
		}
	}
	return out
}

func TestAccumulator_DirectMatchesTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	roles := []*phase16{roleContent, roleEntity, deriveAtom("some other role")}
	weights := func() float64 {
		switch rng.IntN(3) {
		case 0:
			return 1
		case 1:
			return EntityWeight(1+rng.IntN(40), 1+rng.IntN(5))
		}
		return rng.NormFloat64() * 3
	}
	// addBound and addBoundAll, with atom counts on and off multiples of 4.
	for n := range 10 {
		as := make([]*phase16, n)
		for i := range as {
			as[i] = atoms.get(fmt.Sprint("atom-", rng.Uint64()))
		}
		r, w := roles[rng.IntN(len(roles))], weights()
		direct, table := newAccumulator(nil), newAccumulator(cos16())
		direct.addBoundAll(as, r, w)
		table.addBoundAll(as, r, w)
		for _, a := range as[:n/2] {
			w := weights()
			direct.addBound(a, r, w)
			table.addBound(a, r, w)
		}
		sameSums(t, fmt.Sprint(n, " atoms"), direct, table)
		direct.release()
		table.release()
	}
	// Whole facts, through the encoders' entry point.
	for f := range 20 {
		toks, ents := randomTerms(rng, rng.IntN(25)), randomTerms(rng, rng.IntN(4))
		direct := accumulateWith(toks, ents, forceDirect)
		table := accumulateWith(toks, ents, forceTable)
		what := fmt.Sprintf("fact %d (%d tokens, %d entities)", f, len(toks), len(ents))
		sameSums(t, what, direct, table)
		dv, tv := direct.vector(), table.vector()
		for i := range dv {
			if math.Float64bits(dv[i]) != math.Float64bits(tv[i]) {
				t.Fatalf("%s: vector[%d] = %v vs %v", what, i, dv[i], tv[i])
			}
		}
		direct.release()
		table.release()
	}
}

// TestCosTable_Switch encodes facts from a fresh count of bound atoms past
// directAtoms: the first ones must take the direct path, the later ones the
// table, and every fact must encode to the same sums either way, and to
// the same bytes before and after the switch.
func TestCosTable_Switch(t *testing.T) {
	saved := boundAtoms.Load()
	t.Cleanup(func() { boundAtoms.Store(saved) })
	boundAtoms.Store(0)

	rng := rand.New(rand.NewPCG(5, 6))
	type fact struct{ toks, ents []string }
	facts := make([]fact, 12) // about 12·(12+1.5) atoms, past directAtoms
	for i := range facts {
		facts[i] = fact{randomTerms(rng, 8+rng.IntN(10)), randomTerms(rng, rng.IntN(4))}
	}
	encodeAll := func() (out [][]byte) {
		for _, f := range facts {
			out = append(out, EncodeFactCompact(f.toks, f.ents))
		}
		return out
	}

	first := EncodeFactCompact(facts[0].toks, facts[0].ents)
	boundAtoms.Store(0)
	var direct, table int
	for i, f := range facts {
		acc := accumulate(f.toks, f.ents)
		if acc.tab == nil {
			if table > 0 {
				t.Fatalf("fact %d summed directly after the switch to the table", i)
			}
			direct++
		} else {
			table++
		}
		want := accumulateWith(f.toks, f.ents, forceTable)
		sameSums(t, fmt.Sprint("fact ", i), acc, want)
		acc.release()
		want.release()
	}
	if direct == 0 || table == 0 {
		t.Fatalf("%d facts direct, %d by table: the switch was not crossed", direct, table)
	}
	if n := boundAtoms.Load(); n <= directAtoms {
		t.Fatalf("boundAtoms = %d after the switch, want > %d", n, directAtoms)
	}

	// Before and after: the same fact, the same bytes.
	if after := EncodeFactCompact(facts[0].toks, facts[0].ents); !bytes.Equal(first, after) {
		t.Fatal("fact 0 encodes differently after the switch")
	}
	boundAtoms.Store(0)
	before := encodeAll()
	after := encodeAll()
	for i := range before {
		if !bytes.Equal(before[i], after[i]) {
			t.Fatalf("fact %d: first pass (switching) and second pass (table) differ", i)
		}
	}
}
