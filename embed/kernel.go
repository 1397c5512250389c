package embed

// kernels are the inner loops of the forward pass. The SIMD sets are
// written in Go assembly (AVX-512 and AVX2+FMA, amd64); the generic set is
// plain Go and is used when the CPU lacks those features, on other
// architectures, and when Options.NoSIMD asks for it. The products add in
// the same order in every set; the generic set differs in rounding (FMA
// against separate multiply and add), in the last ulp of exp and erf, and
// in the order of the softmax and LayerNorm sums (float64 either way for
// LayerNorm).
type kernels struct {
	name string
	// gemmTile sets c[r*ldc+j] = sum_k a[r*lda+k]*b[k*tileN+j] + bias[j]
	// for r < mr <= tileM, j < tileN, adding the old c[r*ldc+j] when acc
	// is set; b is one packed panel (see packPanels), bias may be nil.
	gemmTile func(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, acc bool, mr int)
	// gemmTile2, when not nil, is gemmTile over two panels at once, the
	// second pstride floats after the first: 2*tileN columns of c and of
	// bias, and up to rows2 rows. Wider tiles reuse each broadcast input
	// twice, taller ones each weight load.
	gemmTile2 func(a []float32, lda int, b []float32, pstride, kk int, c []float32, ldc int, bias []float32, acc bool, mr int)
	rows2     int
	// exp sets x[i] = exp(x[i]*scale - sub) and returns the sum of the
	// new x[i].
	exp func(x []float32, scale, sub float32) float32
	// max returns the largest x[i] (x not empty, no NaN).
	max func(x []float32) float32
	// norm applies LayerNorm to one row in place (statistics in float64).
	norm func(row []float32, ln layerNorm, eps float64)
	// gelu applies the exact (erf) GELU in place.
	gelu func(x []float32)
}

var genericKernels = &kernels{
	name:     "go",
	gemmTile: gemmTileGo,
	exp:      expGo,
	max:      maxGo,
	norm:     normRow,
	gelu:     gelu,
}

// defaultKernels returns the fastest kernel set this CPU supports.
func defaultKernels() *kernels {
	if len(simdKernels) > 0 {
		return simdKernels[0]
	}
	return genericKernels
}

// allKernels returns every kernel set this CPU supports, fastest first,
// the generic set last.
func allKernels() []*kernels {
	return append(append([]*kernels(nil), simdKernels...), genericKernels)
}

// kernelsByName returns the set called name ("avx512", "avx2", "go") if
// this CPU supports it.
func kernelsByName(name string) *kernels {
	for _, k := range allKernels() {
		if k.name == name {
			return k
		}
	}
	return nil
}
