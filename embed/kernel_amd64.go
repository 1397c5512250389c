//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// simdKernels is nil when the CPU lacks AVX2 or FMA.
var simdKernels = func() *kernels {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return nil
	}
	return &kernels{
		name: "avx2",
		dot4x3: func(w []float32, ws int, x []float32, xs int, n int, out *[12]float32) {
			if n == 0 {
				*out = [12]float32{}
				return
			}
			_ = w[3*ws+n-1]
			_ = x[2*xs+n-1]
			dot4x3AVX2(&w[0], ws, &x[0], xs, n, out)
		},
		dot4x1: func(w []float32, ws int, x []float32, n int, out *[4]float32) {
			if n == 0 {
				*out = [4]float32{}
				return
			}
			_ = w[3*ws+n-1]
			_ = x[n-1]
			dot4x1AVX2(&w[0], ws, &x[0], n, out)
		},
		dot: func(a, b []float32) float32 {
			n := len(a) &^ 7
			b = b[:len(a)]
			var s float32
			if n > 0 {
				s = dotAVX2(&a[0], &b[0], n)
			}
			for k := n; k < len(a); k++ {
				s += a[k] * b[k]
			}
			return s
		},
		gelu: func(x []float32) {
			n := len(x) &^ 7
			if n > 0 {
				geluAVX2(&x[0], n)
			}
			gelu(x[n:])
		},
	}
}()

//go:noescape
func dot4x3AVX2(w *float32, ws int, x *float32, xs int, n int, out *[12]float32)

//go:noescape
func dot4x1AVX2(w *float32, ws int, x *float32, n int, out *[4]float32)

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func geluAVX2(x *float32, n int)
