//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// simdKernels is nil when the CPU lacks AVX2 or FMA. There is no AVX-512
// set: the project machine's CPU (a VM on AMD EPYC) does not report
// AVX-512, so such a kernel could not be tested here.
var simdKernels = func() *kernels {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return nil
	}
	return &kernels{
		name: "avx2",
		gemmTile: func(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, acc bool, mr int) {
			if kk <= 0 || mr < 1 || mr > tileM {
				gemmTileGo(a, lda, b, kk, c, ldc, bias, acc, mr)
				return
			}
			// Bounds checks once per tile; the kernel itself has none.
			_ = a[(mr-1)*lda+kk-1]
			_ = b[kk*tileN-1]
			_ = c[(mr-1)*ldc+tileN-1]
			var bp *float32
			if bias != nil {
				_ = bias[tileN-1]
				bp = &bias[0]
			}
			var ac int
			if acc {
				ac = 1
			}
			gemmTileAVX2(&a[0], lda, &b[0], kk, &c[0], ldc, bp, ac, mr)
		},
		exp: func(x []float32, scale, sub float32) {
			n := len(x) &^ 7
			if n > 0 {
				expAVX2(&x[0], n, scale, sub)
			}
			expGo(x[n:], scale, sub)
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
func gemmTileAVX2(a *float32, lda int, b *float32, kk int, c *float32, ldc int, bias *float32, acc int, mr int)

//go:noescape
func expAVX2(x *float32, n int, scale, sub float32)

//go:noescape
func geluAVX2(x *float32, n int)
