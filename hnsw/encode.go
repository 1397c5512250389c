package hnsw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/holomem/holomem/vec"
)

// EncodingVersion is written after the magic by MarshalBinary. Bump it when
// the layout changes and keep reading old versions. When adding fields to
// Graph or Config, consider whether they belong in the encoding.
const EncodingVersion = 1

const magic = "HNSW"

// maxEncodedDim bounds the dimension UnmarshalBinary accepts.
const maxEncodedDim = 1 << 16

// MarshalBinary encodes the graph: magic "HNSW", uint16 version, uint32
// dimension, uint16 M, uint32 EfConstruction, uint32 EfSearch, varint
// MaxVisits, uint64 node count, uint64 entry position, then per node its
// int64 id and float32 vector, then per node and level 0..its level a
// uvarint count followed by uvarint positions of its neighbours. Integers
// are little-endian. Deleted slots are left out.
func (g *Graph) MarshalBinary() ([]byte, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	pos := make([]uint64, len(g.mu.ids)) // slot -> position among live nodes
	var live []uint32
	for s := range g.mu.ids {
		if !g.mu.dead[s] {
			pos[s] = uint64(len(live))
			live = append(live, uint32(s))
		}
	}
	b := make([]byte, 0, 64+len(live)*(8+4*g.dim+2*g.m0))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, EncodingVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(g.dim))
	b = binary.LittleEndian.AppendUint16(b, uint16(g.cfg.M))
	b = binary.LittleEndian.AppendUint32(b, uint32(g.cfg.EfConstruction))
	b = binary.LittleEndian.AppendUint32(b, uint32(g.cfg.EfSearch))
	b = binary.AppendVarint(b, int64(g.cfg.MaxVisits))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(live)))
	var entry uint64
	if len(live) > 0 {
		entry = pos[g.mu.entry]
	}
	b = binary.LittleEndian.AppendUint64(b, entry)
	for _, s := range live {
		b = binary.LittleEndian.AppendUint64(b, uint64(g.mu.ids[s]))
		for _, x := range g.vecLocked(s) {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	for _, s := range live {
		for l := 0; l <= int(g.mu.levels[s]); l++ {
			nb := g.neighboursLocked(s, l)
			b = binary.AppendUvarint(b, uint64(len(nb)))
			for _, x := range nb {
				b = binary.AppendUvarint(b, pos[x])
			}
		}
	}
	return b, nil
}

// errShort is wrapped into ErrCorrupt when the input ends early.
var errShort = errors.New("unexpected end of data")

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u16() uint16 {
	if p := r.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// UnmarshalBinary replaces the graph with one encoded by MarshalBinary,
// taking M, ef and MaxVisits from the data (Progress is kept). On a zero
// Graph it also takes the dimension; otherwise the dimensions must match.
// The decoded graph passes the same checks as [Graph.Import]; errors wrap
// [ErrCorrupt] and leave the graph unchanged.
func (g *Graph) UnmarshalBinary(data []byte) error {
	r := &reader{b: data}
	if string(r.take(len(magic))) != magic {
		return fmt.Errorf("decode: %w: bad magic", ErrCorrupt)
	}
	if v := r.u16(); r.err == nil && v != EncodingVersion {
		return fmt.Errorf("decode: %w: unknown version %d", ErrCorrupt, v)
	}
	dim := int(r.u32())
	var cfg Config
	cfg.M = int(r.u16())
	cfg.EfConstruction = int(r.u32())
	cfg.EfSearch = int(r.u32())
	mv := r.varint()
	n := r.u64()
	entryPos := r.u64()
	if r.err != nil {
		return fmt.Errorf("decode: header: %w: %w", ErrCorrupt, r.err)
	}
	if mv < math.MinInt32 || mv > math.MaxInt32 {
		return fmt.Errorf("decode: %w: MaxVisits %d", ErrCorrupt, mv)
	}
	cfg.MaxVisits = int(mv)
	if dim <= 0 || dim > maxEncodedDim {
		return fmt.Errorf("decode: %w: dimension %d", ErrCorrupt, dim)
	}
	if cfg.M == 0 || cfg.EfConstruction == 0 || cfg.EfSearch == 0 || cfg.EfConstruction > math.MaxInt32 || cfg.EfSearch > math.MaxInt32 {
		return fmt.Errorf("decode: %w: zero or huge parameters", ErrCorrupt)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return fmt.Errorf("decode: %w: %w", ErrCorrupt, err)
	}
	// Every node needs its id and vector, which bounds n by the input size
	// before anything is allocated.
	if per := uint64(8 + 4*dim); n > uint64(len(r.b))/per {
		return fmt.Errorf("decode: %w: %d nodes do not fit in %d bytes", ErrCorrupt, n, len(r.b))
	}
	if n > 0 && entryPos >= n {
		return fmt.Errorf("decode: %w: entry position %d of %d", ErrCorrupt, entryPos, n)
	}
	ids := make([]int64, n)
	flat := make([]float32, int(n)*dim)
	vecs := make([][]float32, n)
	for i := range ids {
		ids[i] = int64(r.u64())
		v := flat[i*dim : (i+1)*dim : (i+1)*dim]
		p := r.take(4 * dim)
		if p == nil {
			break
		}
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*j:]))
		}
		vecs[i] = v
	}
	if r.err != nil {
		return fmt.Errorf("decode: nodes: %w: %w", ErrCorrupt, r.err)
	}
	var links []Link
	for _, id := range ids {
		for l := 0; l <= Level(id, cfg.M); l++ {
			c := r.uvarint()
			if r.err != nil {
				return fmt.Errorf("decode: links: %w: %w", ErrCorrupt, r.err)
			}
			if c > uint64(2*cfg.M) {
				return fmt.Errorf("decode: %w: %d links from %d", ErrCorrupt, c, id)
			}
			if c == 0 {
				continue
			}
			to := make([]int64, c)
			for j := range to {
				p := r.uvarint()
				if r.err == nil && p >= n {
					return fmt.Errorf("decode: %w: link to position %d of %d", ErrCorrupt, p, n)
				}
				to[j] = ids[min(p, n-1)]
			}
			links = append(links, Link{Level: l, From: id, To: to})
		}
	}
	if r.err != nil {
		return fmt.Errorf("decode: links: %w: %w", ErrCorrupt, r.err)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("decode: %w: %d trailing bytes", ErrCorrupt, len(r.b))
	}
	var entry int64
	if n > 0 {
		entry = ids[entryPos]
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dim != 0 && g.dim != dim {
		return fmt.Errorf("decode: %w: %w: encoded dimension %d, graph has %d", ErrCorrupt, vec.ErrDim, dim, g.dim)
	}
	cfg.Progress = g.cfg.Progress
	t := &Graph{dim: dim, cfg: cfg, m0: 2 * cfg.M}
	st, err := t.importState(entry, links, ids, vecs)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if g.dim == 0 {
		g.dim = dim
	}
	g.cfg, g.m0 = t.cfg, t.m0
	g.mu.state = st
	return nil
}
