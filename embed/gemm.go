package embed

import (
	"math"
	"sync"
)

// Matrix products use a register-tiled GEMM: the kernel keeps a tile of
// tileM token rows by tileN output columns in registers (12 AVX2
// accumulators) and walks the shared dimension once, broadcasting one input
// value per row and loading tileN weights per step. The weights are packed
// at load into panels of tileN output columns, [panel][k][tileN], so that
// walk reads one contiguous stream; the last panel is padded with zeros.
// Unlike the dot-product layout this needs no horizontal sums and no
// multiple-of-8 inner dimension.
const (
	tileM = 6
	tileN = 16
)

// packedLen is the length of the packed form of an out x in matrix.
func packedLen(out, in int) int { return (out + tileN - 1) / tileN * tileN * in }

// packPanels writes w ([out][in], the PyTorch layout) into dst in panel
// layout: dst[(p*in+k)*tileN+c] = w[(p*tileN+c)*in+k], zero where
// p*tileN+c >= out. len(dst) must be packedLen(out, in).
func packPanels(dst, w []float32, out, in int) {
	for p := 0; p*tileN < out; p++ {
		panel := dst[p*in*tileN : (p+1)*in*tileN]
		nr := min(tileN, out-p*tileN)
		rows := w[p*tileN*in : (p*tileN+nr)*in]
		if nr == tileN {
			packPanel(panel, rows, in)
			continue
		}
		// Write the panel in order (reading nr rows side by side), which
		// keeps the writes sequential.
		for k := range in {
			d := panel[k*tileN : (k+1)*tileN]
			for c := range nr {
				d[c] = rows[c*in+k]
			}
			clear(d[nr:])
		}
	}
}

// packPanel packs one full panel: tileN rows of in weights, side by side.
// With AVX2 it transposes 8x8 blocks in registers; otherwise sixteen row
// slices of known length let the compiler drop the bounds checks, so the
// loop is a plain stream of loads and stores. (The general loop of
// packPanels made packing most of the load time.)
func packPanel(panel, rows []float32, in int) {
	panel = panel[:in*tileN]
	rows = rows[:tileN*in]
	if k0 := packPanelSIMD(panel, rows, in); k0 > 0 {
		// The last in%8 columns are left to the loop below.
		for c := range tileN {
			for k := k0; k < in; k++ {
				panel[k*tileN+c] = rows[c*in+k]
			}
		}
		return
	}
	r0, r1, r2, r3 := rows[0*in:1*in], rows[1*in:2*in], rows[2*in:3*in], rows[3*in:4*in]
	r4, r5, r6, r7 := rows[4*in:5*in], rows[5*in:6*in], rows[6*in:7*in], rows[7*in:8*in]
	r8, r9, r10, r11 := rows[8*in:9*in], rows[9*in:10*in], rows[10*in:11*in], rows[11*in:12*in]
	r12, r13, r14, r15 := rows[12*in:13*in], rows[13*in:14*in], rows[14*in:15*in], rows[15*in:16*in]
	for k := range in {
		d := (*[tileN]float32)(panel[k*tileN:])
		d[0], d[1], d[2], d[3] = r0[k], r1[k], r2[k], r3[k]
		d[4], d[5], d[6], d[7] = r4[k], r5[k], r6[k], r7[k]
		d[8], d[9], d[10], d[11] = r8[k], r9[k], r10[k], r11[k]
		d[12], d[13], d[14], d[15] = r12[k], r13[k], r14[k], r15[k]
	}
}

// epilogue is what a product does to each finished tile.
type epilogue int

const (
	epStore    epilogue = iota // dst = x W^T + b
	epAdd                      // dst += x W^T + b (the residual connection)
	epGELU                     // dst = gelu(x W^T + b), exact erf GELU
	epGELUTanh                 // dst = gelu_new(x W^T + b)
)

// gemm computes, for t < rows and j < out,
//
//	dst[t*ldd+j] (op) x[t*ldx : t*ldx+in] . W[j] + bias[j]
//
// with W packed by packPanels and op set by ep; bias may be nil. The
// output panels are split across threads goroutines.
func gemm(k *kernels, dst []float32, ldd int, x []float32, ldx, rows, in int, p []float32, out int, bias []float32, ep epilogue, threads int) {
	panels := (out + tileN - 1) / tileN
	if threads <= 1 || panels < 2 || rows*in*out < 1<<16 {
		gemmPanels(k, dst, ldd, x, ldx, rows, in, p, out, bias, ep, 0, panels)
		return
	}
	nt := min(threads, panels)
	var wg sync.WaitGroup
	for t := range nt {
		p0, p1 := panels*t/nt, panels*(t+1)/nt
		wg.Go(func() { gemmPanels(k, dst, ldd, x, ldx, rows, in, p, out, bias, ep, p0, p1) })
	}
	wg.Wait()
}

// Cache blocking of gemmPanels: blockN panels (128 outputs) by blockK
// steps of k make a block of packed weights of 128 KiB, which stays in L2
// while every row block passes over it; the row block's blockK inputs
// (6 KiB) stay in L1 across the blockN panels. This is the blocking of
// ONNX Runtime's MLAS SGEMM (StrideN 128, StrideK 256). Rows go in
// blocks of blockM so that a k block of the inputs (96 KiB) stays in L2
// too when a batch has hundreds of rows.
const (
	blockN = 8
	blockK = 256
	blockM = 16 * tileM
)

// gemmPanels computes the output panels [p0, p1) of gemm.
func gemmPanels(k *kernels, dst []float32, ldd int, x []float32, ldx, rows, in int, p []float32, out int, bias []float32, ep epilogue, p0, p1 int) {
	full := p1
	if p1*tileN > out {
		full = p1 - 1 // the last panel is partial
	}
	tm := tileM // rows per tile
	if k.gemmTile2 != nil {
		tm = k.rows2
	}
	for m0 := 0; m0 < rows; m0 += blockM {
		m1 := min(rows, m0+blockM)
		for pb := p0; pb < full; pb += blockN {
			pe := min(pb+blockN, full)
			for kb := 0; kb < in; kb += blockK {
				kc := min(blockK, in-kb)
				// Later k blocks add to what the first one stored (bias
				// and residual included); the activation waits for the
				// last.
				acc := ep == epAdd || kb > 0
				last := kb+kc == in
				for t := m0; t < m1; t += tm {
					mr := min(tm, m1-t)
					a := x[t*ldx+kb:]
					for pi := pb; pi < pe; {
						// Two panels at a time where the kernel set can.
						np := 1
						if k.gemmTile2 != nil && pi+1 < pe {
							np = 2
						}
						j := pi * tileN
						var bb []float32
						if bias != nil && kb == 0 {
							bb = bias[j : j+np*tileN]
						}
						c := dst[t*ldd+j:]
						b := p[(pi*in+kb)*tileN : ((pi+np-1)*in+kb+kc)*tileN]
						if np == 2 {
							k.gemmTile2(a, ldx, b, in*tileN, kc, c, ldd, bb, acc, mr)
						} else {
							for r := 0; r < mr; r += tileM {
								k.gemmTile(a[r*ldx:], ldx, b, kc, c[r*ldd:], ldd, bb, acc, min(tileM, mr-r))
							}
						}
						if last {
							finishTile(k, c, ldd, mr, np*tileN, ep)
						}
						pi += np
					}
				}
			}
		}
	}
	if full == p1 {
		return
	}
	// The partial panel goes through a scratch tile, over all of k at once,
	// so that the columns past out, which belong to the next row, stay
	// intact.
	var ct [tileM * tileN]float32
	var bt [tileN]float32
	acc := ep == epAdd
	j := full * tileN
	nr := out - j
	b := p[full*in*tileN : (full+1)*in*tileN]
	var bb []float32
	if bias != nil {
		copy(bt[:], bias[j:out])
		bb = bt[:]
	}
	for t := 0; t < rows; t += tileM {
		mr := min(tileM, rows-t)
		if acc {
			for r := range mr {
				copy(ct[r*tileN:r*tileN+nr], dst[(t+r)*ldd+j:])
			}
		}
		k.gemmTile(x[t*ldx:], ldx, b, in, ct[:], tileN, bb, acc, mr)
		finishTile(k, ct[:], tileN, mr, nr, ep)
		for r := range mr {
			copy(dst[(t+r)*ldd+j:(t+r)*ldd+j+nr], ct[r*tileN:])
		}
	}
}

// finishTile applies the activation of ep to the first mr rows and nr
// columns of a tile while it is still in L1.
func finishTile(k *kernels, c []float32, ldc, mr, nr int, ep epilogue) {
	switch ep {
	case epGELU:
		for r := range mr {
			k.gelu(c[r*ldc : r*ldc+nr])
		}
	case epGELUTanh:
		for r := range mr {
			geluTanh(c[r*ldc : r*ldc+nr])
		}
	}
}

// gemmTileGo is the portable kernel: c[r*ldc+j] (+)= sum_k a[r*lda+k] *
// b[k*tileN+j] + bias[j] for r < mr, j < tileN, adding the products in
// the same order as the assembly kernels.
func gemmTileGo(a []float32, lda int, b []float32, kk int, c []float32, ldc int, bias []float32, acc bool, mr int) {
	var s [tileM][tileN]float32
	if kk > 0 {
		_ = a[(mr-1)*lda+kk-1]
	}
	b = b[:kk*tileN]
	for k := range kk {
		bk := (*[tileN]float32)(b[k*tileN:])
		for r := range mr {
			av := a[r*lda+k]
			sr := &s[r]
			for j := range tileN {
				sr[j] += av * bk[j]
			}
		}
	}
	for r := range mr {
		cr := (*[tileN]float32)(c[r*ldc:])
		for j := range tileN {
			v := s[r][j]
			if bias != nil {
				v += bias[j]
			}
			if acc {
				v += cr[j]
			}
			cr[j] = v
		}
	}
}

// expGo sets x[i] = exp(x[i]*scale - sub) with the float32 polynomial of
// the assembly kernel (Cephes expf): a few ulp, far cheaper than math.Exp.
// It returns the sum of the new x[i].
func expGo(x []float32, scale, sub float32) float32 {
	var sum float32
	for i, v := range x {
		x[i] = exp32(v*scale - sub)
		sum += x[i]
	}
	return sum
}

// maxGo returns the largest x[i]. A plain comparison, unlike the max
// builtin, does not spend time on NaN and signed zeros, which scores
// never hold.
func maxGo(x []float32) float32 {
	m := x[0]
	for _, v := range x[1:] {
		if v > m {
			m = v
		}
	}
	return m
}

func exp32(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		c1    = 0.693359375
		c2    = -2.12194440e-4
	)
	x = min(max(x, -87.3), 88.3)
	fx := float32(math.Floor(float64(x*log2e + 0.5)))
	x = x - fx*c1 - fx*c2
	y := float32(1.9875691500e-4)
	y = y*x + 1.3981999507e-3
	y = y*x + 8.3334519073e-3
	y = y*x + 4.1665795894e-2
	y = y*x + 1.6666665459e-1
	y = y*x + 5.0000001201e-1
	y = y*x*x + x + 1
	return y * pow2(int32(fx))
}

// pow2 returns 2**n for -126 <= n <= 127.
func pow2(n int32) float32 {
	return math.Float32frombits(uint32(n+127) << 23)
}
