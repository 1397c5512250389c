package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/holomem/holomem/internal/leaf/safefile"

	"github.com/holomem/holomem/errs"
)

// linear is a dense layer y = x W^T + b. W is stored [out][in] in the file
// (the PyTorch layout) and packed at load into the panel layout of gemm
// (see packPanels), so w holds packedLen(out, in) floats.
type linear struct {
	w       []float32
	b       []float32
	in, out int
}

type layerNorm struct {
	g, b []float32
}

type layer struct {
	q, k, v, o linear
	ln1        layerNorm
	up, down   linear
	ln2        layerNorm
}

// model holds loaded weights. The encoder tensors are read into one arena
// (anonymous memory with huge pages, see allocArena) and converted to
// float32; rows of the word-embedding table are read with pread on demand,
// never mapped. A model is safe for concurrent use once loaded; close must
// not run concurrently with forward.
type model struct {
	cfg       Config
	f         *os.File
	arena     []float32
	arenaB    []byte // the mapping behind arena, nil if on the Go heap
	word      tensorInfo
	pos       []float32 // [MaxPositions][H]
	typ0      []float32 // token type 0 row [H]
	embLN     layerNorm
	layers    []layer
	k         *kernels
	threads   int
	pending   []pendingRead // reads queued by tensor during loadModel
	scratchMu sync.Mutex
	scratch   []*fwdScratch // idle activation memory, see getScratch
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// loadModel opens dir/model.safetensors and checks every tensor against cfg.
func loadModel(dir string, cfg Config, k *kernels, threads int) (_ *model, err error) {
	path := filepath.Join(dir, "model.safetensors")
	f, err := safefile.Open(path, MaxWeightsBytes)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	m := &model{cfg: cfg, f: f, k: k, threads: max(threads, 1)}
	defer func() {
		if err != nil {
			m.close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	raw, err := readSafetensorsHeader(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	ts, err := canonicalTensors(raw)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	// One arena for every tensor but the word embeddings.
	total := 0
	for name, ti := range ts {
		if name != "embeddings.word_embeddings.weight" && elemSize(ti.DType) > 0 && isEncoderTensor(name) {
			total += ti.numel()
			if len(ti.Shape) == 2 && strings.HasPrefix(name, "encoder.layer.") {
				total += packedLen(ti.Shape[0], ti.Shape[1]) - ti.numel()
			}
		}
	}
	if m.arena, m.arenaB, err = allocArena(total); err != nil {
		m.arena = make([]float32, total)
	}
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	get := func(name string, shape ...int) ([]float32, error) {
		ti, ok := ts[name]
		if !ok {
			return nil, fmt.Errorf("%w: tensor %s missing", errs.ErrInvalid, name)
		}
		if err := checkShape(ti, shape); err != nil {
			return nil, err
		}
		return m.tensor(ti)
	}
	var ok bool
	if m.word, ok = ts["embeddings.word_embeddings.weight"]; !ok {
		return nil, fmt.Errorf("load model %s: %w: tensor embeddings.word_embeddings.weight missing", path, errs.ErrInvalid)
	}
	if err := checkShape(m.word, []int{cfg.VocabSize, H}); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if m.pos, err = get("embeddings.position_embeddings.weight", cfg.MaxPositions, H); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	typ, err := get("embeddings.token_type_embeddings.weight", cfg.TypeVocabSize, H)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	m.typ0 = typ[:H]
	if m.embLN, err = m.layerNorm(get, "embeddings.LayerNorm", H); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	m.layers = make([]layer, cfg.NumLayers)
	for i := range m.layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		l := &m.layers[i]
		for _, d := range []struct {
			dst     *linear
			name    string
			out, in int
		}{
			{&l.q, "attention.self.query", H, H},
			{&l.k, "attention.self.key", H, H},
			{&l.v, "attention.self.value", H, H},
			{&l.o, "attention.output.dense", H, H},
			{&l.up, "intermediate.dense", I, H},
			{&l.down, "output.dense", H, I},
		} {
			if *d.dst, err = m.linear(get, p+d.name, d.out, d.in); err != nil {
				return nil, fmt.Errorf("load model %s: %w", path, err)
			}
		}
		if l.ln1, err = m.layerNorm(get, p+"attention.output.LayerNorm", H); err != nil {
			return nil, fmt.Errorf("load model %s: %w", path, err)
		}
		if l.ln2, err = m.layerNorm(get, p+"output.LayerNorm", H); err != nil {
			return nil, fmt.Errorf("load model %s: %w", path, err)
		}
	}
	if err := m.readTensors(); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return m, nil
}

type getter func(name string, shape ...int) ([]float32, error)

func (m *model) linear(get getter, name string, out, in int) (linear, error) {
	w, err := get(name+".weight", out, in)
	if err != nil {
		return linear{}, err
	}
	// The read queued by get goes through a scratch buffer and is packed
	// into the arena (see readTensor), padded to whole panels.
	last := &m.pending[len(m.pending)-1]
	last.packOut, last.packIn = out, in
	if extra := packedLen(out, in) - len(w); extra > 0 {
		if extra > len(m.arena) {
			return linear{}, fmt.Errorf("%w: tensor %s does not fit the arena", errs.ErrInvalid, name)
		}
		// tensor took the front of the arena, so the padding follows w.
		w = unsafe.Slice(&w[0], len(w)+extra)
		m.arena = m.arena[extra:]
		last.dst = w
	}
	b, err := get(name+".bias", out)
	if err != nil {
		return linear{}, err
	}
	return linear{w: w, b: b, in: in, out: out}, nil
}

func (m *model) layerNorm(get getter, name string, n int) (layerNorm, error) {
	g, err := get(name+".weight", n)
	if err != nil {
		return layerNorm{}, err
	}
	b, err := get(name+".bias", n)
	if err != nil {
		return layerNorm{}, err
	}
	return layerNorm{g: g, b: b}, nil
}

func checkShape(ti tensorInfo, want []int) error {
	if elemSize(ti.DType) == 0 {
		return fmt.Errorf("%w: tensor %s has unsupported dtype %q (want F32, F16 or BF16)", errs.ErrInvalid, ti.Name, ti.DType)
	}
	if len(ti.Shape) != len(want) {
		return fmt.Errorf("%w: tensor %s has shape %v, config says %v", errs.ErrInvalid, ti.Name, ti.Shape, want)
	}
	for i := range want {
		if ti.Shape[i] != want[i] {
			return fmt.Errorf("%w: tensor %s has shape %v, config says %v", errs.ErrInvalid, ti.Name, ti.Shape, want)
		}
	}
	return nil
}

// isEncoderTensor reports whether the canonical name is one loadModel reads
// into the arena.
func isEncoderTensor(name string) bool {
	return strings.HasPrefix(name, "embeddings.") || strings.HasPrefix(name, "encoder.layer.")
}

// tensor reserves the next free part of the arena for ti and queues the
// read; readTensors fills it.
func (m *model) tensor(ti tensorInfo) ([]float32, error) {
	n := ti.numel()
	if n > len(m.arena) {
		return nil, fmt.Errorf("%w: tensor %s does not fit the arena", errs.ErrInvalid, ti.Name)
	}
	out := m.arena[:n:n]
	m.arena = m.arena[n:]
	if n > 0 {
		m.pending = append(m.pending, pendingRead{ti: ti, dst: out})
	}
	return out, nil
}

// pendingRead is a tensor to be read into dst; a weight matrix with
// packOut > 0 is packed into dst (see packPanels).
type pendingRead struct {
	ti              tensorInfo
	dst             []float32
	packOut, packIn int
}

// readTensors performs the queued reads, spread over m.threads goroutines
// (copying from the page cache and faulting in the arena are the cost of
// loading).
func (m *model) readTensors() error {
	jobs := m.pending
	m.pending = nil
	nt := min(m.threads, len(jobs))
	if nt <= 1 {
		var sc readScratch
		for _, j := range jobs {
			if err := m.readTensor(j, &sc); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, nt)
	var wg sync.WaitGroup
	for t := range nt {
		wg.Go(func() {
			var sc readScratch
			for i := t; i < len(jobs); i += nt {
				if err := m.readTensor(jobs[i], &sc); err != nil {
					errs[t] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readScratch is one loading goroutine's buffers, reused from tensor to
// tensor (a buffer per tensor left megabytes of garbage at the peak).
type readScratch struct {
	raw  []byte
	rows []float32
}

func (m *model) readTensor(j pendingRead, sc *readScratch) error {
	if j.packOut > 0 {
		return m.readPacked(j, sc)
	}
	ti, out := j.ti, j.dst
	if ti.DType == "F32" && littleEndian {
		raw := unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*len(out))
		if _, err := m.f.ReadAt(raw, ti.Begin); err != nil {
			return fmt.Errorf("read tensor %s: %w", ti.Name, err)
		}
		return nil
	}
	raw := make([]byte, ti.End-ti.Begin)
	if _, err := m.f.ReadAt(raw, ti.Begin); err != nil {
		return fmt.Errorf("read tensor %s: %w", ti.Name, err)
	}
	decodeF32(out, raw, ti.DType)
	return nil
}

// readPacked reads a weight matrix one panel (tileN rows) at a time into
// a small buffer and packs it into j.dst, so that the transposing copy
// works in L2 instead of striding over the whole matrix.
func (m *model) readPacked(j pendingRead, sc *readScratch) error {
	ti, out, in := j.ti, j.packOut, j.packIn
	es := elemSize(ti.DType)
	if ti.DType == "F32" && littleEndian {
		// Pack straight from the page cache: no copy into a buffer first
		// (this made packed loading as cheap as the plain read it
		// replaced). The mapping lives for one tensor, so RSS holds at
		// most one unpacked matrix per loading goroutine. A file cut
		// short by another process during these milliseconds would fault
		// here rather than fail a read; the header check has already
		// matched every offset to the file's size.
		if data, mapping, err := mapRange(m.f, ti.Begin, ti.End-ti.Begin); err == nil {
			packPanels(j.dst, unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), out*in), out, in)
			unmapRange(mapping)
			return nil
		}
	}
	if cap(sc.raw) < tileN*in*es {
		sc.raw = make([]byte, tileN*in*es)
	}
	raw := sc.raw[:tileN*in*es]
	var rows []float32
	if ti.DType != "F32" || !littleEndian {
		sc.rows = grow(sc.rows, tileN*in)
		rows = sc.rows
	}
	for p := 0; p*tileN < out; p++ {
		nr := min(tileN, out-p*tileN)
		b := raw[:nr*in*es]
		if _, err := m.f.ReadAt(b, ti.Begin+int64(p*tileN*in*es)); err != nil {
			return fmt.Errorf("read tensor %s: %w", ti.Name, err)
		}
		var src []float32
		if rows == nil {
			src = unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), nr*in)
		} else {
			src = rows[:nr*in]
			decodeF32(src, b, ti.DType)
		}
		packPanels(j.dst[p*in*tileN:(p+1)*in*tileN], src, nr, in)
	}
	return nil
}

// wordRow reads row id of the word-embedding table into dst; buf is scratch
// space of at least one row of raw bytes.
func (m *model) wordRow(dst []float32, id int32, buf []byte) error {
	es := elemSize(m.word.DType)
	rowBytes := len(dst) * es
	off := m.word.Begin + int64(id)*int64(rowBytes)
	if _, err := m.f.ReadAt(buf[:rowBytes], off); err != nil {
		return fmt.Errorf("read embedding of token %d: %w", id, err)
	}
	decodeF32(dst, buf[:rowBytes], m.word.DType)
	return nil
}

// close releases the file and the map. Slices from tensor must not be used
// afterwards.
func (m *model) close() error {
	m.layers, m.pos, m.typ0, m.embLN, m.arena = nil, nil, nil, layerNorm{}, nil
	m.scratchMu.Lock()
	for _, sc := range m.scratch {
		sc.release()
	}
	m.scratch = nil
	m.scratchMu.Unlock()
	err := freeArena(m.arenaB)
	m.arenaB = nil
	if m.f != nil {
		if cerr := m.f.Close(); err == nil {
			err = cerr
		}
		m.f = nil
	}
	return err
}
