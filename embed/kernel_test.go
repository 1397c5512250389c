package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGEMM checks gemm with every kernel set against a float64 product
// computed from the unpacked weights, over shapes with partial row blocks
// and partial panels, every epilogue, and one and three threads; the SIMD
// and Go sets must also agree with each other, AVX-512 and AVX2 exactly.
func TestGEMM(t *testing.T) {
	sets := allKernels()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []struct{ rows, in, out int }{
		{1, 1, 1}, {1, 8, 16}, {2, 5, 20}, {3, 9, 17}, {5, 7, 3}, {6, 64, 16}, {7, 13, 33}, {10, 100, 100}, {13, 48, 160}, {20, 300, 40}, {100, 30, 40},
		{13, 24, 16}, {20, 30, 48}, {25, 17, 80},
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
			byName := map[string][]float32{}
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
					byName[ks.name] = dst
				}
			}
			// The AVX-512 kernels add in the AVX2 kernels' order: equal bits.
			if a, b := byName["avx512"], byName["avx2"]; a != nil && b != nil {
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("%+v ep %d [%d]: avx512 %g != avx2 %g", sh, ep, i, a[i], b[i])
					}
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
	sets := allKernels()
	rng := rand.New(rand.NewPCG(5, 6))
	x := randSlice(rng, 1005)
	for i := range x {
		x[i] *= 20
	}
	x[0], x[1], x[2], x[3] = 0, -1000, 80, -87
	for _, ks := range sets {
		for _, scale := range []float32{1, 0.125} {
			got := append([]float32(nil), x...)
			sum := ks.exp(got, scale, 3)
			var want64 float64
			for _, v := range got {
				want64 += float64(v)
			}
			if math.Abs(float64(sum)-want64) > 1e-6*want64 {
				t.Fatalf("%s exp scale %g: returned sum %g, the values add up to %g", ks.name, scale, sum, want64)
			}
			for i, v := range x {
				want := math.Exp(float64(v*scale - 3))
				if math.Abs(float64(got[i])-want) > 2e-7*want+1e-37 {
					t.Fatalf("%s exp(%g*%g-3): got %g, want %g", ks.name, v, scale, got[i], want)
				}
			}
		}
	}
}

// TestKernels_max checks max on every length up to 40 (full vectors and
// scalar tails) with the largest value at every position.
func TestKernels_max(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, ks := range allKernels() {
		for n := 1; n <= 40; n++ {
			for at := range n {
				x := randSlice(rng, n)
				for i := range x {
					x[i] = -1 - float32(math.Abs(float64(x[i])))
				}
				x[at] = 0.5
				if got := ks.max(x); got != 0.5 {
					t.Fatalf("%s n %d max at %d: got %g, want 0.5", ks.name, n, at, got)
				}
			}
		}
	}
}

func TestKernels_gelu(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randSlice(rng, 1003)
	for i := range x {
		x[i] *= 4
	}
	x[0], x[1], x[2] = 0, 100, -100
	byName := map[string][]float32{}
	for _, ks := range allKernels() {
		a := append([]float32(nil), x...)
		ks.gelu(a)
		byName[ks.name] = a
		for i := range x {
			want := 0.5 * float64(x[i]) * (1 + math.Erf(float64(x[i])/math.Sqrt2))
			if math.Abs(float64(a[i])-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("%s gelu(%g): got %g, want %g", ks.name, x[i], a[i], want)
			}
		}
	}
	if a, b := byName["avx512"], byName["avx2"]; a != nil && b != nil {
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("gelu(%g): avx512 %g != avx2 %g", x[i], a[i], b[i])
			}
		}
	}
}

// TestPackPanels checks the packed layout against its definition for
// widths with and without a multiple-of-8 part and for partial panels.
func TestPackPanels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, sh := range []struct{ out, in int }{{1, 1}, {16, 7}, {16, 8}, {16, 13}, {33, 24}, {48, 384}, {20, 1539}} {
		w := randSlice(rng, sh.out*sh.in)
		p := make([]float32, packedLen(sh.out, sh.in))
		for i := range p {
			p[i] = float32(math.NaN())
		}
		packPanels(p, w, sh.out, sh.in)
		for pi := 0; pi*tileN < sh.out; pi++ {
			for k := range sh.in {
				for c := range tileN {
					want := float32(0)
					if j := pi*tileN + c; j < sh.out {
						want = w[j*sh.in+k]
					}
					if got := p[(pi*sh.in+k)*tileN+c]; got != want {
						t.Fatalf("%+v panel %d k %d col %d: got %g, want %g", sh, pi, k, c, got, want)
					}
				}
			}
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

// TestAttendHead checks fused attention with every kernel set against a
// float64 softmax(q k^T / sqrt(dh)) v, for head sizes with and without
// whole pairs of panels and sequence lengths around the tile sizes; the
// neighbouring heads' columns must stay untouched.
func TestAttendHead(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dh := range []int{12, 16, 32, 48} {
		for _, L := range []int{1, 5, 13, 17, 40} {
			nh := 3
			H := nh * dh
			q, k, v := randSlice(rng, L*H), randSlice(rng, L*H), randSlice(rng, L*H)
			for _, ks := range allKernels() {
				dst := make([]float32, L*H)
				for i := range dst {
					dst[i] = -7
				}
				var sc attnScratch
				const h = 1
				attendHead(ks, &sc, dst, q, k, v, 0, L, h, H, dh)
				for i := range L {
					s := make([]float64, L)
					var mx, sum float64 = math.Inf(-1), 0
					for j := range L {
						for d := range dh {
							s[j] += float64(q[i*H+h*dh+d]) * float64(k[j*H+h*dh+d])
						}
						s[j] /= math.Sqrt(float64(dh))
						mx = max(mx, s[j])
					}
					for j := range s {
						s[j] = math.Exp(s[j] - mx)
						sum += s[j]
					}
					for c := range H {
						got := dst[i*H+c]
						if c/dh != h {
							if got != -7 {
								t.Fatalf("%s dh %d L %d: row %d column %d of another head written: %g", ks.name, dh, L, i, c, got)
							}
							continue
						}
						var want float64
						for j := range L {
							want += s[j] / sum * float64(v[j*H+c])
						}
						if math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want)) {
							t.Fatalf("%s dh %d L %d [%d][%d]: got %g, want %g", ks.name, dh, L, i, c, got, want)
						}
					}
				}
			}
		}
	}
}

// TestKernels_norm checks every set's LayerNorm against a float64 one, on
// rows with a large common offset (where a float32 mean would be off).
func TestKernels_norm(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{8, 13, 48, 384} {
		ln := layerNorm{g: randSlice(rng, n), b: randSlice(rng, n)}
		x := randSlice(rng, n)
		for i := range x {
			x[i] = 100 + 3*x[i]
		}
		var mean, vs float64
		for _, v := range x {
			mean += float64(v)
		}
		mean /= float64(n)
		for _, v := range x {
			vs += (float64(v) - mean) * (float64(v) - mean)
		}
		inv := 1 / math.Sqrt(vs/float64(n)+1e-5)
		for _, ks := range allKernels() {
			got := append([]float32(nil), x...)
			ks.norm(got, ln, 1e-5)
			for i, v := range x {
				want := (float64(v)-mean)*inv*float64(ln.g[i]) + float64(ln.b[i])
				if math.Abs(float64(got[i])-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("%s n %d [%d]: got %g, want %g", ks.name, n, i, got[i], want)
				}
			}
		}
	}
}
