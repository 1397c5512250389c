package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGEMM checks gemm with every kernel set against a float64 product
// computed from the unpacked weights, over shapes with partial row blocks
// and partial panels, every epilogue, and one and three threads; the SIMD
// and Go sets must also agree with each other.
func TestGEMM(t *testing.T) {
	sets := []*kernels{genericKernels}
	if simdKernels != nil {
		sets = append(sets, simdKernels)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []struct{ rows, in, out int }{
		{1, 1, 1}, {1, 8, 16}, {2, 5, 20}, {3, 9, 17}, {5, 7, 3}, {6, 64, 16}, {7, 13, 33}, {10, 100, 100}, {13, 48, 160}, {20, 300, 40}, {100, 30, 40},
	} {
		w := randSlice(rng, sh.out*sh.in)
		p := make([]float32, packedLen(sh.out, sh.in))
		packPanels(p, w, sh.out, sh.in)
		x := randSlice(rng, sh.rows*sh.in)
		bias := randSlice(rng, sh.out)
		init := randSlice(rng, sh.rows*sh.out)
		for _, ep := range []epilogue{epStore, epAdd, epGELU, epGELUTanh} {
			want := make([]float64, sh.rows*sh.out)
			for r := range sh.rows {
				for j := range sh.out {
					s := float64(bias[j])
					for k := range sh.in {
						s += float64(x[r*sh.in+k]) * float64(w[j*sh.in+k])
					}
					switch ep {
					case epAdd:
						s += float64(init[r*sh.out+j])
					case epGELU, epGELUTanh:
						s = 0.5 * s * (1 + math.Erf(s/math.Sqrt2))
					}
					want[r*sh.out+j] = s
				}
			}
			var got [][]float32
			for _, ks := range sets {
				for _, threads := range []int{1, 3} {
					dst := append([]float32(nil), init...)
					gemm(ks, dst, sh.out, x, sh.in, sh.rows, sh.in, p, sh.out, bias, ep, threads)
					for i, wv := range want {
						tol := 1e-5 * float64(sh.in+1) * (1 + math.Abs(wv))
						if ep == epGELUTanh {
							tol += 2e-3 * (1 + math.Abs(wv)) // tanh approximation against erf
						}
						if d := math.Abs(float64(dst[i]) - wv); d > tol {
							t.Fatalf("%s %+v ep %d threads %d [%d]: got %g, want %g", ks.name, sh, ep, threads, i, dst[i], wv)
						}
					}
					got = append(got, dst)
				}
			}
			for _, g := range got[1:] {
				for i := range sh.rows * sh.out {
					if !close32(g[i], got[0][i], sh.in) {
						t.Fatalf("%+v ep %d [%d]: kernel sets disagree: %g vs %g", sh, ep, i, g[i], got[0][i])
					}
				}
			}
		}
	}
}

// TestKernels_exp checks exp against math.Exp over the range softmax uses
// (arguments <= 0) and beyond, with lengths that leave a scalar tail.
func TestKernels_exp(t *testing.T) {
	sets := []*kernels{genericKernels}
	if simdKernels != nil {
		sets = append(sets, simdKernels)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x := randSlice(rng, 1005)
	for i := range x {
		x[i] *= 20
	}
	x[0], x[1], x[2], x[3] = 0, -1000, 80, -87
	for _, ks := range sets {
		for _, scale := range []float32{1, 0.125} {
			got := append([]float32(nil), x...)
			ks.exp(got, scale, 3)
			for i, v := range x {
				want := math.Exp(float64(v*scale - 3))
				if math.Abs(float64(got[i])-want) > 2e-7*want+1e-37 {
					t.Fatalf("%s exp(%g*%g-3): got %g, want %g", ks.name, v, scale, got[i], want)
				}
			}
		}
	}
}

func TestKernels_gelu(t *testing.T) {
	if simdKernels == nil {
		t.Skip("no SIMD kernels on this CPU or build")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := randSlice(rng, 1003)
	for i := range x {
		x[i] *= 4
	}
	x[0], x[1], x[2] = 0, 100, -100
	a := append([]float32(nil), x...)
	b := append([]float32(nil), x...)
	simdKernels.gelu(a)
	genericKernels.gelu(b)
	for i := range x {
		want := 0.5 * float64(x[i]) * (1 + math.Erf(float64(x[i])/math.Sqrt2))
		if math.Abs(float64(a[i])-want) > 1e-5*(1+math.Abs(want)) || math.Abs(float64(b[i])-want) > 1e-5*(1+math.Abs(want)) {
			t.Fatalf("gelu(%g): simd %g, go %g, want %g", x[i], a[i], b[i], want)
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

func close32(a, b float32, n int) bool {
	return math.Abs(float64(a-b)) <= 1e-5*float64(n+1)
}
