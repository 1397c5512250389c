package embed

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/holomem/holomem"
)

// tileRows is how many token rows a matrix product keeps hot in cache while
// it walks the weight rows: 64 rows of 1536 floats are 384 KiB.
const tileRows = 64

// forward embeds token sequences (special tokens included) and returns one
// pooled, L2-normalised vector per sequence.
//
// The sequences are packed back to back rather than padded: every layer but
// attention works token by token, and attention runs per sequence over its
// own tokens only. That is exactly what a padded batch with an attention
// mask computes for the real tokens, without the work on padding.
func (m *model) forward(ctx context.Context, seqs [][]int32) ([][]float32, error) {
	cfg := m.cfg
	H := cfg.HiddenSize
	offs := make([]int, len(seqs)+1)
	for i, s := range seqs {
		if len(s) == 0 {
			return nil, fmt.Errorf("%w: sequence %d is empty", holomem.ErrInvalid, i)
		}
		if len(s)+cfg.positionOffset() > cfg.MaxPositions {
			return nil, fmt.Errorf("%w: sequence %d has %d tokens, the model takes at most %d", holomem.ErrInvalid, i, len(s), cfg.MaxPositions-cfg.positionOffset())
		}
		for _, id := range s {
			if id < 0 || int(id) >= cfg.VocabSize {
				return nil, fmt.Errorf("%w: token id %d outside the model's vocabulary of %d", holomem.ErrInvalid, id, cfg.VocabSize)
			}
		}
		offs[i+1] = offs[i] + len(s)
	}
	N := offs[len(seqs)]
	x := make([]float32, N*H)
	buf := make([]byte, 4*H)
	for i, s := range seqs {
		for j, id := range s {
			row := x[(offs[i]+j)*H : (offs[i]+j+1)*H]
			if err := m.wordRow(row, id, buf); err != nil {
				return nil, err
			}
			p := m.pos[(cfg.positionOffset()+j)*H:]
			for d := range row {
				row[d] += p[d] + m.typ0[d]
			}
		}
	}
	layerNormRows(x, H, m.embLN, cfg.LayerNormEps)

	q := make([]float32, N*H)
	k := make([]float32, N*H)
	v := make([]float32, N*H)
	ctxv := make([]float32, N*H)
	tmp := make([]float32, N*H)
	inter := make([]float32, N*cfg.IntermediateSize)
	for li := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l := &m.layers[li]
		m.matmul(q, x, N, l.q)
		m.matmul(k, x, N, l.k)
		m.matmul(v, x, N, l.v)
		m.attention(ctxv, q, k, v, offs)
		m.matmul(tmp, ctxv, N, l.o)
		addLayerNorm(x, tmp, H, l.ln1, cfg.LayerNormEps)
		m.matmul(inter, x, N, l.up)
		if cfg.HiddenAct == "gelu_new" {
			geluTanh(inter)
		} else {
			m.k.gelu(inter)
		}
		m.matmul(tmp, inter, N, l.down)
		addLayerNorm(x, tmp, H, l.ln2, cfg.LayerNormEps)
	}
	out := make([][]float32, len(seqs))
	for i := range seqs {
		out[i] = pool(x[offs[i]*H:offs[i+1]*H], H, cfg.Pooling)
	}
	return out, nil
}

// matmul computes dst[t][j] = x[t] . l.w[j] + l.b[j] for t < rows,
// splitting the output columns across m.threads goroutines.
func (m *model) matmul(dst, x []float32, rows int, l linear) {
	matmulKernel(m.k, dst, x, rows, l.in, l.w, l.out, l.b, m.threads)
}

// matmulKernel computes dst[t*out+j] = x[t*in:] . w[j*in:] (+ bias[j]).
func matmulKernel(k *kernels, dst, x []float32, rows, in int, w []float32, out int, bias []float32, threads int) {
	blocks := (out + 3) / 4
	work := rows * in * out
	if threads <= 1 || work < 1<<16 || blocks < 2 {
		matmulRange(k, dst, x, rows, in, w, out, bias, 0, out)
		return
	}
	nt := min(threads, blocks)
	var wg sync.WaitGroup
	for t := range nt {
		j0 := blocks * t / nt * 4
		j1 := min(out, blocks*(t+1)/nt*4)
		wg.Go(func() { matmulRange(k, dst, x, rows, in, w, out, bias, j0, j1) })
	}
	wg.Wait()
}

// matmulRange computes the output columns [j0, j1) of matmulKernel; j0 is a
// multiple of 4.
func matmulRange(k *kernels, dst, x []float32, rows, in int, w []float32, out int, bias []float32, j0, j1 int) {
	n8 := in &^ 7
	var acc12 [12]float32
	var acc4 [4]float32
	var zero [4]float32
	// tail adds the products of the last in-n8 elements, which the
	// kernels leave out.
	tail := func(wr, xr []float32) float32 {
		var s float32
		for i := n8; i < in; i++ {
			s += wr[i] * xr[i]
		}
		return s
	}
	for t0 := 0; t0 < rows; t0 += tileRows {
		t1 := min(rows, t0+tileRows)
		j := j0
		for ; j+4 <= j1; j += 4 {
			wb := w[j*in : (j+4)*in]
			bb := zero[:]
			if bias != nil {
				bb = bias[j : j+4]
			}
			t := t0
			for ; t+3 <= t1; t += 3 {
				xb := x[t*in : (t+3)*in]
				k.dot4x3(wb, in, xb, in, n8, &acc12)
				for r := range 3 {
					d := dst[(t+r)*out+j : (t+r)*out+j+4]
					a := acc12[4*r : 4*r+4]
					d[0], d[1], d[2], d[3] = a[0]+bb[0], a[1]+bb[1], a[2]+bb[2], a[3]+bb[3]
					if n8 < in {
						for i := range 4 {
							d[i] += tail(wb[i*in:(i+1)*in], xb[r*in:(r+1)*in])
						}
					}
				}
			}
			for ; t < t1; t++ {
				xr := x[t*in : (t+1)*in]
				k.dot4x1(wb, in, xr, n8, &acc4)
				d := dst[t*out+j : t*out+j+4]
				d[0], d[1], d[2], d[3] = acc4[0]+bb[0], acc4[1]+bb[1], acc4[2]+bb[2], acc4[3]+bb[3]
				if n8 < in {
					for i := range 4 {
						d[i] += tail(wb[i*in:(i+1)*in], xr)
					}
				}
			}
		}
		for ; j < j1; j++ {
			wr := w[j*in : (j+1)*in]
			var b float32
			if bias != nil {
				b = bias[j]
			}
			for t := t0; t < t1; t++ {
				dst[t*out+j] = k.dot(wr, x[t*in:(t+1)*in]) + b
			}
		}
	}
}

// attention computes multi-head self-attention of every sequence over its
// own tokens: dst = softmax(q k^T / sqrt(dh)) v, head by head.
func (m *model) attention(dst, q, k, v []float32, offs []int) {
	H, nh := m.cfg.HiddenSize, m.cfg.NumHeads
	type job struct{ seq, head int }
	var jobs []job
	for s := range len(offs) - 1 {
		for h := range nh {
			jobs = append(jobs, job{s, h})
		}
	}
	run := func(lo, hi int) {
		var sc attnScratch
		for _, j := range jobs[lo:hi] {
			attendHead(m.k, &sc, dst, q, k, v, offs[j.seq], offs[j.seq+1]-offs[j.seq], j.head, H, H/nh)
		}
	}
	nt := min(m.threads, len(jobs))
	if nt <= 1 || (offs[len(offs)-1] < 32 && len(offs) == 2) {
		run(0, len(jobs))
		return
	}
	var wg sync.WaitGroup
	for t := range nt {
		lo, hi := len(jobs)*t/nt, len(jobs)*(t+1)/nt
		wg.Go(func() { run(lo, hi) })
	}
	wg.Wait()
}

type attnScratch struct {
	qh, kh, vt, sc, ch []float32
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// attendHead runs one head over the L tokens starting at row off.
func attendHead(kn *kernels, sc *attnScratch, dst, q, k, v []float32, off, L, h, H, dh int) {
	sc.qh = grow(sc.qh, L*dh)
	sc.kh = grow(sc.kh, L*dh)
	sc.vt = grow(sc.vt, dh*L)
	sc.sc = grow(sc.sc, L*L)
	sc.ch = grow(sc.ch, L*dh)
	for i := range L {
		base := (off+i)*H + h*dh
		copy(sc.qh[i*dh:(i+1)*dh], q[base:base+dh])
		copy(sc.kh[i*dh:(i+1)*dh], k[base:base+dh])
		for d := range dh {
			sc.vt[d*L+i] = v[base+d]
		}
	}
	matmulKernel(kn, sc.sc, sc.qh, L, dh, sc.kh, L, nil, 1)
	scale := float32(1 / math.Sqrt(float64(dh)))
	for i := range L {
		row := sc.sc[i*L : (i+1)*L]
		mx := float32(math.Inf(-1))
		for j := range row {
			row[j] *= scale
			mx = max(mx, row[j])
		}
		var sum float32
		for j := range row {
			e := float32(math.Exp(float64(row[j] - mx)))
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
	matmulKernel(kn, sc.ch, sc.sc, L, L, sc.vt, dh, nil, 1)
	for i := range L {
		base := (off+i)*H + h*dh
		copy(dst[base:base+dh], sc.ch[i*dh:(i+1)*dh])
	}
}

// layerNormRows normalises each row of x in place.
func layerNormRows(x []float32, H int, ln layerNorm, eps float64) {
	for r := 0; r < len(x); r += H {
		normRow(x[r:r+H], ln, eps)
	}
}

// addLayerNorm sets x = LayerNorm(x + y) row by row.
func addLayerNorm(x, y []float32, H int, ln layerNorm, eps float64) {
	for i := range x {
		x[i] += y[i]
	}
	layerNormRows(x, H, ln, eps)
}

func normRow(row []float32, ln layerNorm, eps float64) {
	var sum float64
	for _, v := range row {
		sum += float64(v)
	}
	mean := sum / float64(len(row))
	var vs float64
	for _, v := range row {
		d := float64(v) - mean
		vs += d * d
	}
	inv := 1 / math.Sqrt(vs/float64(len(row))+eps)
	g, b := ln.g[:len(row)], ln.b[:len(row)]
	for i, v := range row {
		row[i] = float32((float64(v)-mean)*inv)*g[i] + b[i]
	}
}

// gelu applies the exact GELU, x/2 (1 + erf(x/sqrt 2)), in place.
func gelu(x []float32) {
	for i, v := range x {
		x[i] = 0.5 * v * (1 + erf32(v*math.Sqrt2/2))
	}
}

// geluTanh applies the tanh approximation of GELU ("gelu_new") in place.
func geluTanh(x []float32) {
	const c = 0.7978845608028654 // sqrt(2/pi)
	for i, v := range x {
		f := float64(v)
		x[i] = float32(0.5 * f * (1 + math.Tanh(c*(f+0.044715*f*f*f))))
	}
}

// erf32 is a float32 rational approximation of erf (the one Eigen and
// XNNPACK use), accurate to a few ulp and much faster than math.Erf.
func erf32(a float32) float32 {
	x := min(max(a, -4), 4)
	x2 := x * x
	p := x2*-2.72614225801306e-10 + 2.77068142495902e-08
	p = p*x2 + -2.10102402082508e-06
	p = p*x2 + -5.69250639462346e-05
	p = p*x2 + -7.34990630326855e-04
	p = p*x2 + -2.95459980854025e-03
	p = p*x2 + -1.60960333262415e-02
	p *= x
	q := x2*-1.45660718464996e-05 + -2.13374055278905e-04
	q = q*x2 + -1.68282697438203e-03
	q = q*x2 + -7.37332916720468e-03
	q = q*x2 + -1.42647390514189e-02
	return p / q
}

// pool combines the token rows of one sequence and L2-normalises the result.
func pool(x []float32, H int, mode Pooling) []float32 {
	L := len(x) / H
	acc := make([]float64, H)
	if mode == PoolingCLS {
		for d := range H {
			acc[d] = float64(x[d])
		}
	} else {
		for r := range L {
			for d, v := range x[r*H : (r+1)*H] {
				acc[d] += float64(v)
			}
		}
		for d := range acc {
			acc[d] /= float64(L)
		}
	}
	var ss float64
	for _, v := range acc {
		ss += v * v
	}
	out := make([]float32, H)
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for d, v := range acc {
		out[d] = float32(v * inv)
	}
	return out
}
