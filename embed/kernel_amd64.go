//go:build amd64 && !purego

package embed

import (
	"math"

	"golang.org/x/sys/cpu"
)

// simdKernels are the assembly sets this CPU supports, fastest first:
// AVX-512 (F) when the CPU and OS support it, then AVX2+FMA; empty when
// the CPU has neither. The AVX-512 set adds the products in the same
// order as the AVX2 set, so the two give equal results.
var simdKernels = func() []*kernels {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return nil
	}
	exp := func(x []float32, scale, sub float32) float32 {
		n := len(x) &^ 7
		var sum float32
		if n > 0 {
			sum = expAVX2(&x[0], n, scale, sub)
		}
		return sum + expGo(x[n:], scale, sub)
	}
	maxf := func(x []float32) float32 {
		n := len(x) &^ 7
		if n == 0 {
			return maxGo(x)
		}
		m := maxAVX2(&x[0], n)
		if n < len(x) {
			m = max(m, maxGo(x[n:]))
		}
		return m
	}
	gelu := func(x []float32) {
		n := len(x) &^ 7
		if n > 0 {
			geluAVX2(&x[0], n)
		}
		gelu(x[n:])
	}
	norm := func(row []float32, ln layerNorm, eps float64) {
		n := len(row)
		if n%8 != 0 || len(ln.g) < n || len(ln.b) < n {
			normRow(row, ln, eps)
			return
		}
		mean, m2 := meanVarAVX2(&row[0], n)
		inv := 1 / math.Sqrt(m2/float64(n)+eps)
		normApplyAVX2(&row[0], n, &ln.g[0], &ln.b[0], float32(mean), float32(inv))
	}
	avx2 := &kernels{
		name: "avx2",
		gemmTile: func(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, acc bool, mr int) {
			if !tileArgsOK(a, lda, b, kk, c, ldc, bias, mr, tileN, tileM) {
				gemmTileGo(a, lda, b, kk, c, ldc, bias, acc, mr)
				return
			}
			gemmTileAVX2(&a[0], lda, &b[0], kk, &c[0], ldc, biasPtr(bias), b2i(acc), mr)
		},
		exp:  exp,
		max:  maxf,
		norm: norm,
		gelu: gelu,
	}
	if !cpu.X86.HasAVX512F {
		return []*kernels{avx2}
	}
	gelu512 := func(x []float32) {
		n := len(x) &^ 15
		if n > 0 {
			geluAVX512(&x[0], n)
		}
		gelu(x[n:])
	}
	avx512 := &kernels{
		name: "avx512",
		gemmTile: func(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, acc bool, mr int) {
			if !tileArgsOK(a, lda, b, kk, c, ldc, bias, mr, tileN, tileM) {
				gemmTileGo(a, lda, b, kk, c, ldc, bias, acc, mr)
				return
			}
			gemmTileAVX512(&a[0], lda, &b[0], kk, &c[0], ldc, biasPtr(bias), b2i(acc), mr)
		},
		rows2: 2 * tileM,
		gemmTile2: func(a []float32, lda int, b []float32, pstride, kk int, c []float32, ldc int, bias []float32, acc bool, mr int) {
			if pstride < kk*tileN || len(b) < pstride+kk*tileN || !tileArgsOK(a, lda, b, kk, c, ldc, bias, mr, 2*tileN, 2*tileM) {
				panic("embed: gemmTile2 arguments out of range")
			}
			gemmTile12AVX512(&a[0], lda, &b[0], pstride, kk, &c[0], ldc, biasPtr(bias), b2i(acc), mr)
		},
		exp:  exp,
		max:  maxf,
		norm: norm,
		gelu: gelu512,
	}
	return []*kernels{avx512, avx2}
}()

// packPanelSIMD packs the first in&^7 columns of a full panel (see
// packPanel) with AVX2 and returns how many it packed: 0 without AVX2.
func packPanelSIMD(panel, rows []float32, in int) int {
	kk := in &^ 7
	if kk == 0 || len(simdKernels) == 0 || len(panel) < in*tileN || len(rows) < tileN*in {
		return 0
	}
	packPanelAVX2(&panel[0], &rows[0], in, kk)
	return kk
}

// tileArgsOK checks once per tile what the assembly kernels would otherwise
// read or write out of bounds (they have no checks of their own): mr rows
// of kk inputs, kk steps of one panel, mr rows of width columns of c and
// of bias (maxRows at most).
func tileArgsOK(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, mr, width, maxRows int) bool {
	if kk <= 0 || mr < 1 || mr > maxRows {
		return false
	}
	return len(a) >= (mr-1)*lda+kk && len(b) >= kk*tileN && len(c) >= (mr-1)*ldc+width && (bias == nil || len(bias) >= width)
}

func biasPtr(bias []float32) *float32 {
	if bias == nil {
		return nil
	}
	return &bias[0]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

//go:noescape
func gemmTileAVX2(a *float32, lda int, b *float32, kk int, c *float32, ldc int, bias *float32, acc int, mr int)

//go:noescape
func gemmTileAVX512(a *float32, lda int, b *float32, kk int, c *float32, ldc int, bias *float32, acc int, mr int)

//go:noescape
func gemmTile12AVX512(a *float32, lda int, b *float32, pstride int, kk int, c *float32, ldc int, bias *float32, acc int, mr int)

//go:noescape
func packPanelAVX2(dst *float32, src *float32, in int, kk int)

//go:noescape
func expAVX2(x *float32, n int, scale, sub float32) float32

//go:noescape
func meanVarAVX2(x *float32, n int) (mean, m2 float64)

//go:noescape
func normApplyAVX2(x *float32, n int, gamma, beta *float32, mean, inv float32)

//go:noescape
func maxAVX2(x *float32, n int) float32

//go:noescape
func geluAVX2(x *float32, n int)

//go:noescape
func geluAVX512(x *float32, n int)
