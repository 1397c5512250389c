package embed

// kernels are the inner loops of the forward pass. The SIMD set is written
// in Go assembly (AVX2+FMA, amd64); the generic set is plain Go and is used
// when the CPU lacks those features, on other architectures, and when
// Options.NoSIMD asks for it. Both compute the same sums in the same order;
// they differ only in rounding (FMA against separate multiply and add) and
// in the last ulp of exp and erf.
type kernels struct {
	name string
	// gemmTile sets c[r*ldc+j] = sum_k a[r*lda+k]*b[k*tileN+j] + bias[j]
	// for r < mr <= tileM, j < tileN, adding the old c[r*ldc+j] when acc
	// is set; b is one packed panel (see packPanels), bias may be nil.
	gemmTile func(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, acc bool, mr int)
	// exp sets x[i] = exp(x[i]*scale - sub).
	exp func(x []float32, scale, sub float32)
	// gelu applies the exact (erf) GELU in place.
	gelu func(x []float32)
}

var genericKernels = &kernels{
	name:     "go",
	gemmTile: gemmTileGo,
	exp:      expGo,
	gelu:     gelu,
}

// defaultKernels returns the fastest kernel set this CPU supports.
func defaultKernels() *kernels {
	if simdKernels != nil {
		return simdKernels
	}
	return genericKernels
}
