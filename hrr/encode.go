package hrr

import (
	"math"
	"slices"
	"strings"
)

// EncodeFact returns a fact's holographic vector: the bundle of
// Bind(Atom(t), ROLE_CONTENT) for each distinct content token t and
// Bind(Atom(e), ROLE_ENTITY) for each distinct entity e.
//
// Tokens are used as given (the caller tokenizes and normalises); empty
// tokens are skipped. Entity keys are lower-cased, so ProbeKey("Nginx") finds
// a fact encoded with "nginx". Order and repetition do not matter: terms are
// deduplicated and sorted before summing, so the same sets always give the
// same bits.
//
// Entity terms are weighted up by [EntityWeight] so that the entities
// together carry at least half of the vector's power however long the
// content is. Without that, a 30-token fact would hold its entity at the
// level of one term in 31 and a probe for it would sink toward the noise;
// with it, each of n entities keeps a 1/(2n) share and probe separates
// members from non-members at any content length (see "# Capacity").
//
// A fact with no tokens and no entities encodes as the all-zero vector.
func EncodeFact(tokens, entities []string) Vector {
	return encode(tokens, entities)
}

// EncodeQuery returns the vector a recall query is compared with, for the
// hrr channel: the same terms and weights as [EncodeFact], so a query that
// names exactly a fact's tokens and entities scores 1 against it and the
// score falls as the term sets diverge. Use [QueryKey] to score compact
// vectors with it and [Relevance] to map the score to 0..1.
func EncodeQuery(tokens, entities []string) Vector {
	return encode(tokens, entities)
}

// QueryKey returns the scan key of [EncodeQuery]: NewKey(EncodeQuery(...)),
// computed like [EncodeFactCompact] without an arc tangent per component
// (phaseByte gives the bytes quantize(atan2) does), a tenth of a warm
// recall's CPU otherwise.
func QueryKey(tokens, entities []string) *Key {
	acc := accumulate(tokens, entities)
	var q [Dim]byte
	for i := range Dim {
		q[i] = phaseByte(acc.re[i], acc.im[i])
	}
	acc.release()
	return keyOf(&q)
}

// EntityWeight is the weight [EncodeFact] gives each entity term in a fact
// with the given numbers of distinct content tokens and entities (content
// tokens weigh 1): sqrt(max(contentTokens, entities)/entities), so the
// entities' total power equals the content's when content dominates and
// every term weighs 1 otherwise. It returns 0 when entities is 0.
func EntityWeight(contentTokens, entities int) float64 {
	if entities <= 0 {
		return 0
	}
	return math.Sqrt(float64(max(contentTokens, entities)) / float64(entities))
}

// distinct returns the sorted distinct non-empty strings, lower-cased if asked.
func distinct(in []string, lower bool) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if lower {
			s = strings.ToLower(s)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EncodeFactCompact returns Marshal(EncodeFact(tokens, entities)) without
// the float64 phases in between: each component's 8-bit phase is read off
// the sum's real and imaginary parts by comparisons against the tangents of
// the bin edges instead of an arc tangent per component (that arc tangent
// was a third of encoding's time, and encoding most of a bulk import's CPU).
// Angles within rounding error of a bin edge take the arc tangent, so the
// bytes are Marshal's (TestEncodeFactCompact checks millions of components).
func EncodeFactCompact(tokens, entities []string) []byte {
	acc := accumulate(tokens, entities)
	out := make([]byte, EncodedLen)
	out[0] = EncodingVersion
	for i := range Dim {
		out[1+i] = phaseByte(acc.re[i], acc.im[i])
	}
	acc.release()
	return out
}

// binTan[j] is tan((j+0.5)·2π/256): the tangent of the upper edge of the
// j-th 8-bit phase bin, for the angles of the first octant (j < 32), and
// +Inf past the octant.
var binTan = func() (t [33]float64) {
	for j := range 32 {
		t[j] = math.Tan((float64(j) + 0.5) * quantum)
	}
	t[32] = math.Inf(1)
	return t
}()

// ratioCells splits the tangents 0..1 of the first octant into cells
// narrower than the gap between two bin edges (at least 0.0245), so a cell
// holds at most one edge and cellBin (the bin at the cell's start) and one
// comparison give the bin.
const ratioCells = 256

var cellBin = func() (t [ratioCells]uint8) {
	for i := range t {
		r := float64(i) / ratioCells
		for binTan[t[i]] < r {
			t[i]++
		}
	}
	return t
}()

// phaseByte returns quantize(atan2(im, re)): the nearest of the 256 phase
// steps to the angle of re + i·im. It folds the angle into the first octant
// (0 <= y <= x), finds its bin k from the tangent y/x (cellBin, then one
// comparison with the edge), and unfolds it through octantOff and
// octantSign. Branch-free but for the rare cases: a zero, infinite or NaN
// sum, and an angle within rounding error of an edge (a sum of one phasor
// lands exactly on one when its 16-bit phase is a half step), take the arc
// tangent, so the result is Marshal's bit for bit.
func phaseByte(re, im float64) uint8 {
	if (re == 0 && im == 0) || math.IsInf(re, 0) || math.IsInf(im, 0) || re != re || im != im {
		return quantize(math.Atan2(im, re))
	}
	ax, ay := math.Abs(re), math.Abs(im)
	x, y := max(ax, ay), min(ax, ay)
	c := min(int(y/x*ratioCells), ratioCells-1)
	k := int(cellBin[c])
	k += b2i(y > float64(x*binTan[k]))
	const tie = 1e-12
	if float64(x*binTan[k])-y < tie*x || (k > 0 && y-float64(x*binTan[k-1]) < tie*x) {
		return quantize(math.Atan2(im, re))
	}
	o := b2i(re < 0)<<2 | b2i(im < 0)<<1 | b2i(ay > ax)
	return uint8((octantOff[o] + octantSign[o]*k) & 0xff)
}

// octantOff and octantSign unfold a first-octant bin k: the bin is
// off + sign·k for the octant coded (re < 0, im < 0, |im| > |re|).
var (
	octantOff  = [8]int{0, 64, 256, 192, 128, 64, 128, 192}
	octantSign = [8]int{1, -1, -1, 1, -1, 1, 1, -1}
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func encode(tokens, entities []string) Vector {
	acc := accumulate(tokens, entities)
	defer acc.release()
	return acc.vector()
}

// accumulate sums the bound phasors of a fact's terms (see EncodeFact).
func accumulate(tokens, entities []string) *accumulator {
	return accumulateWith(tokens, entities, cosTable)
}

// accumulateWith is accumulate with the accumulator's table chosen by
// table(number of atoms) instead of cosTable, so tests can force either path.
func accumulateWith(tokens, entities []string, table func(atoms int) *[1 << phaseBits]float64) *accumulator {
	content := distinct(tokens, false)
	ents := distinct(entities, true)
	acc := newAccumulator(table(len(content) + len(ents)))
	as := make([]*phase16, 0, max(len(content), len(ents)))
	for _, t := range content {
		as = append(as, atoms.get(t))
	}
	acc.addBoundAll(as, roleContent, 1)
	as = as[:0]
	for _, e := range ents {
		as = append(as, atoms.get(e))
	}
	acc.addBoundAll(as, roleEntity, EntityWeight(len(content), len(ents)))
	return acc
}
