package hrr

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// Vector is a holographic vector: Dim phases in radians, each in [0, 2π).
// Phase i stands for the unit complex number e^(i·θ), so a Vector is a point
// on the Dim-dimensional torus and every component has magnitude 1.
//
// Functions taking Vectors panic when a length is not Dim: that is a
// programmer error, like a wrong dimension passed to any vector math. Data
// from outside goes through [Unmarshal], which returns an error instead.
type Vector []float64

// twoPi is one full turn.
const twoPi = 2 * math.Pi

// wrap maps an angle to [0, 2π).
func wrap(x float64) float64 {
	if x >= 0 && x < twoPi {
		return x
	}
	x = math.Mod(x, twoPi)
	if x < 0 {
		x += twoPi
	}
	if x >= twoPi { // -tiny + 2π rounds up to 2π
		x = 0
	}
	return x
}

func assertDim(vs ...Vector) {
	for _, v := range vs {
		if len(v) != Dim {
			panic(fmt.Sprintf("hrr: vector has %d phases, want %d", len(v), Dim))
		}
	}
}

// Bind returns a ⊛ b: the phases added component-wise. For unit phasors this
// is exactly circular convolution (multiplication in the frequency domain),
// and it is invertible: Unbind(Bind(a, b), b) == a. The result is nearly
// orthogonal to both a and b.
func Bind(a, b Vector) Vector {
	assertDim(a, b)
	out := make(Vector, Dim)
	for i := range out {
		out[i] = wrap(a[i] + b[i])
	}
	return out
}

// Unbind returns a with b's phases subtracted, the exact inverse of [Bind].
// Unbinding from a bundle is only approximate: Unbind(Bundle(Bind(x, r), n),
// r) is x plus the noise of the other terms, which is why recovered vectors
// must be cleaned up against a codebook (see [Related]).
func Unbind(a, b Vector) Vector {
	assertDim(a, b)
	out := make(Vector, Dim)
	for i := range out {
		out[i] = wrap(a[i] - b[i])
	}
	return out
}

// Bundle superposes vectors with equal weights: see [BundleWeighted].
func Bundle(vs ...Vector) Vector {
	return BundleWeighted(vs, nil)
}

// BundleWeighted superposes vectors: per component it sums the unit phasors
// weights[j]·e^(i·vs[j][i]) and keeps the angle of the sum. A nil weights
// means weight 1 for every vector; otherwise it must have len(vs) entries.
//
// The magnitude of the sum is discarded, so a bundle is again a phase vector
// and can be bound, bundled or stored like an atom. The price is that a
// bundle does not remember how many terms it holds or how strongly each
// component agreed: similarity to a member falls off as about
// 0.89·w/sqrt(Σw²−w²) (w the member's weight), which is what limits capacity
// (see the package documentation). A component whose phasors cancel exactly
// gets phase 0. Bundling no vectors returns the all-zero vector.
func BundleWeighted(vs []Vector, weights []float64) Vector {
	if weights != nil && len(weights) != len(vs) {
		panic(fmt.Sprintf("hrr: %d weights for %d vectors", len(weights), len(vs)))
	}
	assertDim(vs...)
	re := make([]float64, Dim)
	im := make([]float64, Dim)
	for j, v := range vs {
		w := 1.0
		if weights != nil {
			w = weights[j]
		}
		for i, th := range v {
			s, c := math.Sincos(th)
			re[i] += float64(w * c)
			im[i] += float64(w * s)
		}
	}
	out := make(Vector, Dim)
	for i := range out {
		out[i] = wrap(math.Atan2(im[i], re[i]))
	}
	return out
}

// Similarity returns the mean of cos(a[i] − b[i]): 1 for equal vectors, about
// 0 ± 1/sqrt(2·Dim) for unrelated ones, −1 for opposite ones. It is the real
// part of the normalised inner product of the two phasor vectors.
func Similarity(a, b Vector) float64 {
	assertDim(a, b)
	var s float64
	for i := range a {
		s += math.Cos(a[i] - b[i])
	}
	return s / Dim
}

// cosPhase returns cos(2π·p/65536). The table and the direct path both
// compute their values with it, so they give the same bits.
func cosPhase(p uint16) float64 {
	return math.Cos(float64(p) * radPerUnit16)
}

// cos16 returns a table of cosPhase; sin(x) is cos at k − 16384.
// 512 KiB, built on first use because only encoders need it.
var cos16 = sync.OnceValue(func() *[1 << phaseBits]float64 {
	var t [1 << phaseBits]float64
	for k := range t {
		t[k] = cosPhase(uint16(k))
	}
	return &t
})

// directAtoms is how many bound atoms a process sums with cosPhase before
// it builds cos16 and uses that. The table costs 65,536 cosines (about
// 0.6 ms) and 128 page faults (about 4 ms where a fault costs 30 µs); an
// atom summed directly costs 2,048 cosines (about 17 µs) where the table
// costs a few µs. So the table pays off after 32 to 250 atoms, and a
// one-shot process (a hook encoding one query of ten-odd terms, a remember
// of one fact) is better off without it; 128 atoms is a query and a few
// facts, and a bulk import switches within its first ten facts.
const directAtoms = 128

// boundAtoms counts the atoms the process's accumulators were made for,
// up to a little past directAtoms.
var boundAtoms atomic.Int64

// cosTable returns the table an accumulator for n atoms uses: nil (sum
// directly) while the process has bound at most directAtoms atoms, cos16
// after. Past the switch it only reads boundAtoms, so concurrent encoders
// do not contend on it.
func cosTable(n int) *[1 << phaseBits]float64 {
	if boundAtoms.Load() <= directAtoms && boundAtoms.Add(int64(n)) <= directAtoms {
		return nil
	}
	return cos16()
}

// quarter is a quarter turn in 16-bit phase units: cos(x − quarter) = sin(x).
const quarter = 1 << (phaseBits - 2)

// accumulator sums weighted phasors of bound 16-bit atoms.
type accumulator struct {
	re, im [Dim]float64
	// tab is cos16, or nil to compute each cosine with cosPhase: same
	// sums, bit for bit.
	tab *[1 << phaseBits]float64
}

// accumulators recycles accumulators: at 16 KiB each, one per encoded
// fact was most of a bulk import's allocation, and its garbage collection.
var accumulators = sync.Pool{New: func() any { return new(accumulator) }}

// newAccumulator returns a zeroed accumulator that sums with tab (see
// cosTable); release it when its sums have been read.
func newAccumulator(tab *[1 << phaseBits]float64) *accumulator {
	acc := accumulators.Get().(*accumulator)
	acc.re, acc.im = [Dim]float64{}, [Dim]float64{}
	acc.tab = tab
	return acc
}

// release hands acc back for reuse; it must not be used afterwards.
func (acc *accumulator) release() { accumulators.Put(acc) }

// addBound adds w·e^(i(a+r)) per component: the phasor of Bind(a, r).
func (acc *accumulator) addBound(a, r *phase16, w float64) {
	t := acc.tab
	if t == nil {
		acc.addBoundDirect(a, r, w)
		return
	}
	for i := range Dim {
		p := a[i] + r[i]
		// The explicit conversions forbid fused multiply-add, so every
		// platform rounds alike and stored vectors are bit-identical.
		acc.re[i] += float64(w * t[p])
		acc.im[i] += float64(w * t[uint16(p-quarter)])
	}
}

// addBoundDirect is addBound computing the table's entries instead of
// reading them.
func (acc *accumulator) addBoundDirect(a, r *phase16, w float64) {
	for i := range Dim {
		p := a[i] + r[i]
		acc.re[i] += float64(w * cosPhase(p))
		acc.im[i] += float64(w * cosPhase(p-quarter))
	}
}

// addBoundAll adds w·e^(i(a+r)) for every a in as. It gives bit-for-bit the
// sums of calling addBound for each in turn (per component the additions
// happen in the same order), but visits the accumulator once per four
// atoms, which halves the memory traffic. Without a table the cosines
// dominate, and it just calls addBound.
func (acc *accumulator) addBoundAll(as []*phase16, r *phase16, w float64) {
	t := acc.tab
	if t == nil {
		for _, a := range as {
			acc.addBoundDirect(a, r, w)
		}
		return
	}
	for ; len(as) >= 4; as = as[4:] {
		a0, a1, a2, a3 := as[0], as[1], as[2], as[3]
		for i := range Dim {
			ri := r[i]
			p0, p1, p2, p3 := a0[i]+ri, a1[i]+ri, a2[i]+ri, a3[i]+ri
			re, im := acc.re[i], acc.im[i]
			re += float64(w * t[p0])
			im += float64(w * t[uint16(p0-quarter)])
			re += float64(w * t[p1])
			im += float64(w * t[uint16(p1-quarter)])
			re += float64(w * t[p2])
			im += float64(w * t[uint16(p2-quarter)])
			re += float64(w * t[p3])
			im += float64(w * t[uint16(p3-quarter)])
			acc.re[i], acc.im[i] = re, im
		}
	}
	for _, a := range as {
		acc.addBound(a, r, w)
	}
}

// vector returns the phases of the sum.
func (acc *accumulator) vector() Vector {
	out := make(Vector, Dim)
	for i := range out {
		out[i] = wrap(math.Atan2(acc.im[i], acc.re[i]))
	}
	return out
}
