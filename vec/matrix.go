package vec

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// DefaultRescore is the candidate multiplier r used by [Matrix.SearchInt8]
// when it is passed r <= 0: the int8 pass keeps k*r candidates for float32
// rescoring.
const DefaultRescore = 4

// minChunk is the fewest float32 elements one search goroutine scans; below
// it, starting a goroutine costs more than it saves.
const minChunk = 1 << 16

// Matrix holds N vectors of one dimension contiguously in memory, keyed by
// int64 ids, and answers exact top-k queries by a full scan. Optionally it
// also keeps an int8 copy (see [Matrix.EnableInt8]) that moves 4x fewer bytes
// per scan to pre-select candidates for exact rescoring.
//
// Scores are inner products; store unit vectors to rank by cosine.
//
// A Matrix is safe for concurrent use: searches share a read lock and writes
// take the write lock.
type Matrix struct {
	dim int

	mu struct {
		sync.RWMutex
		data    []float32     // row p is data[p*dim:(p+1)*dim]
		ids     []int64       // ids[p] is the id of row p
		pos     map[int64]int // id -> row
		int8    bool          // q8 and scale are maintained
		q8      []int8        // int8 rows, parallel to data
		scale   []float32     // per-row dequantisation scale
		workers int           // search goroutines; 0 = GOMAXPROCS
	}
}

// NewMatrix returns an empty matrix for vectors of length dim. It panics if
// dim <= 0, which is a programmer error.
func NewMatrix(dim int) *Matrix {
	if dim <= 0 {
		panic(fmt.Sprintf("vec: NewMatrix dimension %d", dim))
	}
	m := &Matrix{dim: dim}
	m.mu.pos = make(map[int64]int)
	return m
}

// Dim returns the vector length.
func (m *Matrix) Dim() int { return m.dim }

// Len returns the number of stored vectors.
func (m *Matrix) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.mu.ids)
}

// SetWorkers sets how many goroutines one search may use. n <= 0 means
// runtime.GOMAXPROCS(0), the default. Small matrices are scanned by one
// goroutine whatever the setting.
func (m *Matrix) SetWorkers(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mu.workers = n
}

// EnableInt8 builds and from then on maintains the int8 copy used by
// [Matrix.SearchInt8]. It costs dim+4 bytes per vector. Calling it again does
// nothing.
func (m *Matrix) EnableInt8() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.int8 {
		return
	}
	m.mu.int8 = true
	n := len(m.mu.ids)
	m.mu.q8 = make([]int8, n*m.dim)
	m.mu.scale = make([]float32, n)
	for p := range n {
		m.mu.scale[p] = quantize(m.row8Locked(p), m.rowLocked(p))
	}
}

// Int8 reports whether the int8 copy is maintained.
func (m *Matrix) Int8() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.mu.int8
}

// Bytes returns the memory held by the vectors and their copies, not counting
// the id map.
func (m *Matrix) Bytes() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return 4*cap(m.mu.data) + cap(m.mu.q8) + 4*cap(m.mu.scale) + 8*cap(m.mu.ids)
}

func (m *Matrix) rowLocked(p int) []float32 { return m.mu.data[p*m.dim : (p+1)*m.dim : (p+1)*m.dim] }

func (m *Matrix) row8Locked(p int) []int8 { return m.mu.q8[p*m.dim : (p+1)*m.dim : (p+1)*m.dim] }

// Add stores v under id. It returns an error wrapping [ErrExists] if id is
// already stored, or [ErrDim]/[ErrInvalid] if v is unusable. v is copied.
func (m *Matrix) Add(id int64, v []float32) error {
	if err := CheckDim(v, m.dim); err != nil {
		return fmt.Errorf("add %d: %w", id, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.mu.pos[id]; ok {
		return fmt.Errorf("add %d: %w", id, ErrExists)
	}
	m.appendLocked(id, v)
	return nil
}

// Set stores v under id, replacing any vector stored there. It returns an
// error wrapping [ErrDim] or [ErrInvalid] if v is unusable. v is copied.
func (m *Matrix) Set(id int64, v []float32) error {
	if err := CheckDim(v, m.dim); err != nil {
		return fmt.Errorf("set %d: %w", id, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.mu.pos[id]
	if !ok {
		m.appendLocked(id, v)
		return nil
	}
	copy(m.rowLocked(p), v)
	if m.mu.int8 {
		m.mu.scale[p] = quantize(m.row8Locked(p), v)
	}
	return nil
}

// appendLocked adds a new row. m.mu must be held for writing.
func (m *Matrix) appendLocked(id int64, v []float32) {
	p := len(m.mu.ids)
	m.mu.ids = append(m.mu.ids, id)
	m.mu.pos[id] = p
	m.mu.data = append(m.mu.data, v...)
	if m.mu.int8 {
		m.mu.q8 = slices.Grow(m.mu.q8, m.dim)[:len(m.mu.q8)+m.dim]
		m.mu.scale = append(m.mu.scale, quantize(m.row8Locked(p), v))
	}
}

// Delete removes id and reports whether it was stored. The last row moves
// into the hole, so deletion is O(dim).
func (m *Matrix) Delete(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.mu.pos[id]
	if !ok {
		return false
	}
	last := len(m.mu.ids) - 1
	if p != last {
		moved := m.mu.ids[last]
		m.mu.ids[p] = moved
		m.mu.pos[moved] = p
		copy(m.rowLocked(p), m.rowLocked(last))
		if m.mu.int8 {
			copy(m.row8Locked(p), m.row8Locked(last))
			m.mu.scale[p] = m.mu.scale[last]
		}
	}
	delete(m.mu.pos, id)
	m.mu.ids = m.mu.ids[:last]
	m.mu.data = m.mu.data[:last*m.dim]
	if m.mu.int8 {
		m.mu.q8 = m.mu.q8[:last*m.dim]
		m.mu.scale = m.mu.scale[:last]
	}
	return true
}

// Get returns a copy of the vector stored under id.
func (m *Matrix) Get(id int64) ([]float32, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.mu.pos[id]
	if !ok {
		return nil, false
	}
	return slices.Clone(m.rowLocked(p)), true
}

// Has reports whether id is stored.
func (m *Matrix) Has(id int64) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.mu.pos[id]
	return ok
}

// IDs returns the stored ids in ascending order.
func (m *Matrix) IDs() []int64 {
	m.mu.RLock()
	ids := slices.Clone(m.mu.ids)
	m.mu.RUnlock()
	slices.Sort(ids)
	return ids
}

// Snapshot returns copies of all ids (ascending) and their vectors, for
// example to build an index in a deterministic order.
func (m *Matrix) Snapshot() ([]int64, [][]float32) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ids := slices.Clone(m.mu.ids)
	slices.Sort(ids)
	flat := make([]float32, len(ids)*m.dim)
	vecs := make([][]float32, len(ids))
	for i, id := range ids {
		v := flat[i*m.dim : (i+1)*m.dim : (i+1)*m.dim]
		copy(v, m.rowLocked(m.mu.pos[id]))
		vecs[i] = v
	}
	return ids, vecs
}

// Search returns the k stored vectors with the highest inner product with q,
// best first, ties broken by lower id. The scan is exact (float32). If filter
// is not nil only ids for which it returns true are considered; filter may be
// called from several goroutines at once and must be safe for that. It
// returns an error wrapping [ErrDim] or [ErrInvalid] if q is unusable.
func (m *Matrix) Search(q []float32, k int, filter func(id int64) bool) ([]Result, error) {
	if err := CheckDim(q, m.dim); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	k = min(k, len(m.mu.ids)) // a huge k must not size allocations
	return m.fanOutLocked(k, func(lo, hi int, t *TopK) { m.scanLocked(q, lo, hi, filter, t) }), nil
}

// SearchInt8 is like [Matrix.Search] but first ranks all vectors by their
// int8 copies, keeps the k*r best (r <= 0 means [DefaultRescore]) and
// rescores those in float32. Returned scores are exact; a true neighbour is
// missed only when int8 rounding pushes it below k*r others, which is rare for
// r >= 4 on unit vectors. Without [Matrix.EnableInt8] it is an exact scan.
func (m *Matrix) SearchInt8(q []float32, k, r int, filter func(id int64) bool) ([]Result, error) {
	if err := CheckDim(q, m.dim); err != nil {
		return nil, fmt.Errorf("search int8: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	if r <= 0 {
		r = DefaultRescore
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := len(m.mu.ids)
	k = min(k, n)
	if !m.mu.int8 || k == 0 {
		return m.fanOutLocked(k, func(lo, hi int, t *TopK) { m.scanLocked(q, lo, hi, filter, t) }), nil
	}
	q8 := make([]int8, m.dim)
	qs := quantize(q8, q)
	cand := m.fanOutLocked(min(n, k*min(r, n)), func(lo, hi int, t *TopK) { m.scan8Locked(q8, qs, lo, hi, filter, t) })
	t := NewTopK(k)
	for _, c := range cand {
		t.Push(Result{ID: c.ID, Score: dot(q, m.rowLocked(m.mu.pos[c.ID]))})
	}
	return t.Sorted(), nil
}

// fanOutLocked splits the rows into contiguous ranges, scans them on up to
// workers goroutines and merges the partial top-k lists. Because [Better] is
// a total order, the result does not depend on the split. m.mu must be held.
func (m *Matrix) fanOutLocked(k int, scan func(lo, hi int, t *TopK)) []Result {
	n := len(m.mu.ids)
	w := m.mu.workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = min(w, max(1, n*m.dim/minChunk))
	if w <= 1 {
		t := NewTopK(k)
		scan(0, n, t)
		return t.Sorted()
	}
	parts := make([]*TopK, w)
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := n*i/w, n*(i+1)/w
		parts[i] = NewTopK(k)
		wg.Go(func() { scan(lo, hi, parts[i]) })
	}
	wg.Wait()
	t := NewTopK(k)
	for _, p := range parts {
		for _, r := range p.h {
			t.Push(r)
		}
	}
	return t.Sorted()
}

func (m *Matrix) scanLocked(q []float32, lo, hi int, filter func(int64) bool, t *TopK) {
	dim := m.dim
	data, ids := m.mu.data, m.mu.ids
	for p := lo; p < hi; p++ {
		s := dot(q, data[p*dim:(p+1)*dim])
		if t.Full() && s < t.h[0].Score {
			continue
		}
		id := ids[p]
		if filter != nil && !filter(id) {
			continue
		}
		t.Push(Result{ID: id, Score: s})
	}
}

func (m *Matrix) scan8Locked(q8 []int8, qs float32, lo, hi int, filter func(int64) bool, t *TopK) {
	dim := m.dim
	data, ids, scale := m.mu.q8, m.mu.ids, m.mu.scale
	for p := lo; p < hi; p++ {
		s := float32(dotInt8(q8, data[p*dim:(p+1)*dim])) * scale[p] * qs
		if t.Full() && s < t.h[0].Score {
			continue
		}
		id := ids[p]
		if filter != nil && !filter(id) {
			continue
		}
		t.Push(Result{ID: id, Score: s})
	}
}
