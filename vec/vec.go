package vec

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors returned by this package. Callers test them with errors.Is.
var (
	// ErrDim means a vector's length differs from the dimension expected.
	ErrDim = errors.New("vec: dimension mismatch")
	// ErrInvalid means a vector holds NaN or ±Inf, or a dimension is not positive.
	ErrInvalid = errors.New("vec: invalid vector")
	// ErrExists means Add was given an id that is already stored.
	ErrExists = errors.New("vec: id exists")
	// ErrCorrupt means encoded bytes could not be decoded.
	ErrCorrupt = errors.New("vec: corrupt encoding")
)

// Dot returns the inner product of a and b. It uses an AVX2/FMA kernel when
// the CPU has one, so the last bits may differ from a plain loop (see the
// package documentation). Dot panics if the lengths differ: that is a
// programmer error, and callers holding user data check with [CheckDim].
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("vec: Dot of lengths %d and %d", len(a), len(b)))
	}
	return dot(a, b)
}

// DotGeneric is the portable kernel: Dot without AVX2/FMA, and what callers
// that must avoid assembly use (pure-Go kernel sets, tests). Four
// accumulators let the compiler keep
// independent add chains in flight, roughly doubling speed over one.
func DotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s int32
	for i := range a {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}

// Norm returns the Euclidean length of v.
func Norm(v []float32) float32 {
	return float32(math.Sqrt(float64(dot(v, v))))
}

// Normalize scales v in place to unit length and returns its former length.
// A zero vector is left unchanged and 0 is returned.
func Normalize(v []float32) float32 {
	n := Norm(v)
	if n == 0 {
		return 0
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
	return n
}

// Cosine returns the cosine similarity of a and b, or 0 if either is a zero
// vector. It panics if the lengths differ, like [Dot].
func Cosine(a, b []float32) float32 {
	d := Dot(a, b)
	na, nb := Norm(a), Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return d / (na * nb)
}

// CheckDim returns an error wrapping [ErrDim] if len(v) != dim, and one
// wrapping [ErrInvalid] if v holds NaN or ±Inf. Use it where user data enters.
func CheckDim(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("%w: got %d, want %d", ErrDim, len(v), dim)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: element %d is %v", ErrInvalid, i, x)
		}
	}
	return nil
}

// Result is one search hit: a vector's id and its score (inner product with
// the query; cosine similarity when both are unit vectors).
type Result struct {
	ID    int64
	Score float32
}

// Better reports whether a ranks before b: higher score first, then lower id.
// Every ranking in this module uses this total order, so results never depend
// on scan order or goroutine timing.
func Better(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}
