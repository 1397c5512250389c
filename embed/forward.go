package embed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/holomem/holomem/errs"
)

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
			return nil, fmt.Errorf("%w: sequence %d is empty", errs.ErrInvalid, i)
		}
		if len(s)+cfg.positionOffset() > cfg.MaxPositions {
			return nil, fmt.Errorf("%w: sequence %d has %d tokens, the model takes at most %d", errs.ErrInvalid, i, len(s), cfg.MaxPositions-cfg.positionOffset())
		}
		for _, id := range s {
			if id < 0 || int(id) >= cfg.VocabSize {
				return nil, fmt.Errorf("%w: token id %d outside the model's vocabulary of %d", errs.ErrInvalid, id, cfg.VocabSize)
			}
		}
		offs[i+1] = offs[i] + len(s)
	}
	N := offs[len(seqs)]
	sc := m.getScratch()
	defer m.putScratch(sc)
	sc.reserve(N, H, cfg.IntermediateSize)
	x, q, k, v, ctxv, inter := sc.x, sc.q, sc.k, sc.v, sc.ctx, sc.inter
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
	layerNormRows(m.k, x, H, m.embLN, cfg.LayerNormEps)

	act := epGELU
	if cfg.HiddenAct == "gelu_new" {
		act = epGELUTanh
	}
	for li := range m.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l := &m.layers[li]
		m.matmul(q, x, N, l.q, epStore)
		m.matmul(k, x, N, l.k, epStore)
		m.matmul(v, x, N, l.v, epStore)
		m.attention(sc, ctxv, q, k, v, offs)
		// x += ctx Wo^T + bo, then LayerNorm: the residual is added in the
		// product's epilogue.
		m.matmul(x, ctxv, N, l.o, epAdd)
		layerNormRows(m.k, x, H, l.ln1, cfg.LayerNormEps)
		m.matmul(inter, x, N, l.up, act)
		m.matmul(x, inter, N, l.down, epAdd)
		layerNormRows(m.k, x, H, l.ln2, cfg.LayerNormEps)
	}
	out := make([][]float32, len(seqs))
	for i := range seqs {
		out[i] = pool(x[offs[i]*H:offs[i+1]*H], H, cfg.Pooling)
	}
	return out, nil
}

// fwdScratch holds the activations of one forward pass. Passes reuse them
// (see model.getScratch), and they live outside the Go heap, in one
// mapping from allocArena: a batch of 32 texts needs 12 MB for L12, and on
// the heap those megabytes set the collector's goal, so the garbage the
// collector let accumulate on top of them (plus a second copy whenever a
// larger batch grew them) raised the peak RSS by as much again.
type fwdScratch struct {
	x, q, k, v, ctx, inter []float32
	mem                    []byte        // the mapping behind the six slices; nil on the Go heap
	tokens                 int           // rows the six slices have room for
	attn                   []attnScratch // one per attention goroutine
}

// scratchRound is the granule, in tokens, in which activation memory grows,
// so that batches of similar sizes reuse one mapping.
const scratchRound = 64

// reserve makes the six activation slices N rows long (H columns, I for
// inter), replacing the mapping when it is too small. The old mapping is
// released before the new one is made, so that two never coexist.
func (sc *fwdScratch) reserve(N, H, I int) {
	if N > sc.tokens {
		sc.release()
		n := (N + scratchRound - 1) / scratchRound * scratchRound
		size := n * (H + max(4*H, I))
		buf, mem, err := allocArena(size)
		if err != nil {
			buf, mem = make([]float32, size), nil
		}
		sc.mem, sc.tokens = mem, n
		sc.x, buf = buf[:n*H:n*H], buf[n*H:]
		// inter shares its memory with q, k, v and ctx: they are dead
		// by the time the feed-forward half of a layer runs, and the
		// next layer's products overwrite them before reading them
		// (this cuts a pass's activations from 9 to 5 rows of H floats
		// per token for BERT shapes, where I = 4H).
		sc.inter = buf[: n*I : n*I]
		for _, p := range []*[]float32{&sc.q, &sc.k, &sc.v, &sc.ctx} {
			*p, buf = buf[:n*H:n*H], buf[n*H:]
		}
	}
	sc.x, sc.q, sc.k, sc.v, sc.ctx = sc.x[:N*H], sc.q[:N*H], sc.k[:N*H], sc.v[:N*H], sc.ctx[:N*H]
	sc.inter = sc.inter[:N*I]
}

// release returns the activation memory to the OS.
func (sc *fwdScratch) release() {
	_ = freeArena(sc.mem)
	sc.x, sc.q, sc.k, sc.v, sc.ctx, sc.inter, sc.mem, sc.tokens = nil, nil, nil, nil, nil, nil, nil, 0
}

// getScratch takes an idle fwdScratch, or a new one when every one is in
// use (one per concurrent forward pass). It is a plain free list rather
// than a sync.Pool: a pool drops its items at garbage collection, which
// would leak their mappings.
func (m *model) getScratch() *fwdScratch {
	m.scratchMu.Lock()
	defer m.scratchMu.Unlock()
	if n := len(m.scratch); n > 0 {
		sc := m.scratch[n-1]
		m.scratch = m.scratch[:n-1]
		return sc
	}
	return new(fwdScratch)
}

// putScratch returns sc to the free list. At most GOMAXPROCS idle ones are
// kept (more passes than that cannot run at once anyway): a burst of
// concurrent callers would otherwise leave megabytes per caller resident
// until the model is unloaded.
func (m *model) putScratch(sc *fwdScratch) {
	m.scratchMu.Lock()
	defer m.scratchMu.Unlock()
	if len(m.scratch) >= runtime.GOMAXPROCS(0) {
		sc.release()
		return
	}
	m.scratch = append(m.scratch, sc)
}

// matmul computes dst[t] (op) x[t] W^T + b for the rows t < rows.
func (m *model) matmul(dst, x []float32, rows int, l linear, ep epilogue) {
	gemm(m.k, dst, l.out, x, l.in, rows, l.in, l.w, l.out, l.b, ep, m.threads)
}

// attention computes multi-head self-attention of every sequence over its
// own tokens: dst = softmax(q k^T / sqrt(dh)) v, head by head.
func (m *model) attention(fs *fwdScratch, dst, q, k, v []float32, offs []int) {
	H, nh := m.cfg.HiddenSize, m.cfg.NumHeads
	type job struct{ seq, head int }
	var jobs []job
	for s := range len(offs) - 1 {
		for h := range nh {
			jobs = append(jobs, job{s, h})
		}
	}
	nt := min(m.threads, len(jobs))
	if len(fs.attn) < max(nt, 1) {
		fs.attn = make([]attnScratch, max(nt, 1))
	}
	run := func(t, lo, hi int) {
		sc := &fs.attn[t]
		for _, j := range jobs[lo:hi] {
			attendHead(m.k, sc, dst, q, k, v, offs[j.seq], offs[j.seq+1]-offs[j.seq], j.head, H, H/nh)
		}
	}
	if nt <= 1 || (offs[len(offs)-1] < 32 && len(offs) == 2) {
		run(0, 0, len(jobs))
		return
	}
	var wg sync.WaitGroup
	for t := range nt {
		lo, hi := len(jobs)*t/nt, len(jobs)*(t+1)/nt
		wg.Go(func() { run(t, lo, hi) })
	}
	wg.Wait()
}

// attnScratch is one goroutine's working memory for attendHead.
type attnScratch struct {
	kp, vp []float32 // K^T and V of one head, packed in panels
	s      []float32 // scores of tileM query rows, [tileM][len(kp) panels * tileN]
	ct     [tileM * tileN]float32
	inv    [2 * tileM]float32 // 1 / sum of each query row's weights
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// attendHead runs one head over the L tokens starting at row off, fused
// per block of tileM query rows: the scores of the block (tileM x L, in
// L1), their softmax and the weighted sum of values are done before the
// next block starts, so the L x L score matrix is never stored.
func attendHead(kn *kernels, sc *attnScratch, dst, q, k, v []float32, off, L, h, H, dh int) {
	Lp := (L + tileN - 1) / tileN * tileN
	dp := (dh + tileN - 1) / tileN * tileN
	// K^T as the weights of a product with L outputs over dh, V as one
	// with dh outputs over L.
	sc.kp = grow(sc.kp, Lp*dh)
	sc.vp = grow(sc.vp, dp*L)
	for p := 0; p < Lp; p += tileN {
		panel := sc.kp[p*dh : (p+tileN)*dh]
		for c := range tileN {
			if p+c >= L {
				for d := range dh {
					panel[d*tileN+c] = 0
				}
				continue
			}
			row := k[(off+p+c)*H+h*dh:][:dh]
			for d, x := range row {
				panel[d*tileN+c] = x
			}
		}
	}
	for p := 0; p < dp; p += tileN {
		panel := sc.vp[p*L : (p+tileN)*L]
		nr := min(tileN, dh-p)
		for j := range L {
			row := v[(off+j)*H+h*dh+p:][:nr]
			pr := panel[j*tileN : (j+1)*tileN]
			copy(pr, row)
			clear(pr[nr:])
		}
	}
	// Query rows per block: the rows of the kernel set's widest tile.
	tm := tileM
	if kn.gemmTile2 != nil {
		tm = kn.rows2
	}
	sc.s = grow(sc.s, tm*Lp)
	scale := float32(1 / math.Sqrt(float64(dh)))
	for i := 0; i < L; i += tm {
		mr := min(tm, L-i)
		a := q[(off+i)*H+h*dh:]
		for p := 0; p < Lp; {
			if kn.gemmTile2 != nil && p+tileN < Lp {
				kn.gemmTile2(a, H, sc.kp[p*dh:(p+2*tileN)*dh], dh*tileN, dh, sc.s[p:], Lp, nil, false, mr)
				p += 2 * tileN
				continue
			}
			tileRows(kn, a, H, sc.kp[p*dh:(p+tileN)*dh], dh, sc.s[p:], Lp, mr)
			p += tileN
		}
		// Unnormalised weights: the sums divide the dh outputs of each
		// row below instead of its L weights here.
		for r := range mr {
			row := sc.s[r*Lp : r*Lp+L]
			mx := kn.max(row)
			sc.inv[r] = 1 / kn.exp(row, scale, mx*scale)
		}
		for p := 0; p < dp; {
			out := dst[(off+i)*H+h*dh+p:]
			if kn.gemmTile2 != nil && p+2*tileN <= dh {
				kn.gemmTile2(sc.s, Lp, sc.vp[p*L:(p+2*tileN)*L], L*tileN, L, out, H, nil, false, mr)
				p += 2 * tileN
				continue
			}
			vp := sc.vp[p*L : (p+tileN)*L]
			if nr := dh - p; nr < tileN {
				// A partial panel goes through a scratch tile, so that the
				// columns past dh (the next head's) stay intact.
				for r0 := 0; r0 < mr; r0 += tileM {
					n := min(tileM, mr-r0)
					kn.gemmTile(sc.s[r0*Lp:], Lp, vp, L, sc.ct[:], tileN, nil, false, n)
					for r := range n {
						copy(out[(r0+r)*H:][:nr], sc.ct[r*tileN:])
					}
				}
			} else {
				tileRows(kn, sc.s, Lp, vp, L, out, H, mr)
			}
			p += tileN
		}
		for r := range mr {
			row := dst[(off+i+r)*H+h*dh:][:dh]
			for d := range row {
				row[d] *= sc.inv[r]
			}
		}
	}
}

// tileRows runs gemmTile (store, no bias) over mr rows, tileM at a time.
func tileRows(kn *kernels, a []float32, lda int, b []float32, kk int, c []float32, ldc, mr int) {
	for r := 0; r < mr; r += tileM {
		kn.gemmTile(a[r*lda:], lda, b, kk, c[r*ldc:], ldc, nil, false, min(tileM, mr-r))
	}
}

// layerNormRows normalises each row of x in place.
func layerNormRows(kn *kernels, x []float32, H int, ln layerNorm, eps float64) {
	for r := 0; r < len(x); r += H {
		kn.norm(x[r:r+H], ln, eps)
	}
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
