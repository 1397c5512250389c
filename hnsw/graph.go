package hnsw

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Defaults for [Config] fields left at zero.
const (
	// DefaultM is the number of neighbours kept per node on upper layers;
	// the bottom layer keeps 2*M. 16 is a good default for 384-d embeddings.
	DefaultM = 16
	// DefaultEfConstruction is the candidate list size used while inserting.
	DefaultEfConstruction = 200
	// DefaultEfSearch is the candidate list size used by Search when it is
	// passed ef <= 0.
	DefaultEfSearch = 64
)

// MaxM is the largest M accepted: bottom-layer neighbour counts are stored
// in a byte.
const MaxM = 127

// maxLevel caps node levels; with M=16 a level above 12 needs about 16^12
// nodes, so the cap never binds in practice but bounds corrupt input.
const maxLevel = 16

// Sentinel errors. Callers test them with errors.Is; dimension problems wrap
// [vec.ErrDim] instead.
var (
	// ErrCorrupt means imported links or encoded bytes do not describe a
	// valid graph: unknown ids, levels that do not match an id's hash,
	// neighbour lists over capacity, a missing entry point.
	ErrCorrupt = errors.New("hnsw: corrupt index")
	// ErrExists means an id being added is already in the graph.
	ErrExists = errors.New("hnsw: id exists")
	// ErrConfig means a Config field is out of range, or the Graph was not
	// created with New.
	ErrConfig = errors.New("hnsw: invalid config")
)

var errZero = fmt.Errorf("%w: zero Graph; use New or UnmarshalBinary", ErrConfig)

// Config holds the tunable parameters of a [Graph]. Zero fields take the
// defaults named in their comments.
type Config struct {
	// M is the neighbour count per node on upper layers; the bottom layer
	// keeps M0 = 2*M. Default DefaultM (16); range 2..MaxM. It also fixes
	// every node's level (see [Level]), so it must match when importing.
	M int
	// EfConstruction is the candidate list size while inserting; larger
	// builds slower and finds better neighbours. Default 200.
	EfConstruction int
	// EfSearch is the candidate list size used when Search gets ef <= 0.
	// Default 64.
	EfSearch int
	// MaxVisits bounds the vector comparisons one Search may make, so a
	// degenerate graph costs bounded time. 0 means 100*ef + 1000; a negative
	// value means no bound.
	MaxVisits int
	// Progress, if set, is called by Build after each batch with the number
	// of vectors inserted so far and the total. It runs with the graph's
	// write lock held and must not call the graph.
	Progress func(done, total int)
}

func (c Config) withDefaults() (Config, error) {
	if c.M == 0 {
		c.M = DefaultM
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	if c.EfSearch == 0 {
		c.EfSearch = DefaultEfSearch
	}
	if c.M < 2 || c.M > MaxM {
		return c, fmt.Errorf("%w: M %d outside 2..%d", ErrConfig, c.M, MaxM)
	}
	if c.EfConstruction < 1 || c.EfSearch < 1 {
		return c, fmt.Errorf("%w: ef must be positive", ErrConfig)
	}
	return c, nil
}

// Graph is a hierarchical navigable small world index over int64 ids. Scores
// are inner products, so store unit vectors to rank by cosine. The graph
// keeps its own copy of every vector.
//
// A Graph is safe for concurrent use: searches share a read lock; Add,
// Delete, Build and Import take the write lock.
type Graph struct {
	dim  int
	cfg  Config
	m0   int // bottom-layer capacity, 2*M
	pool sync.Pool

	mu struct {
		sync.RWMutex
		state
	}
}

// state is everything the write lock guards. Import builds a new state
// aside and swaps it in, so a failed import leaves the graph untouched.
type state struct {
	ids    []int64          // slot -> id
	slot   map[int64]uint32 // id -> slot, live nodes only
	vecs   []float32        // slot's vector at [slot*dim:(slot+1)*dim]
	levels []uint8          // slot -> top level
	dead   []bool           // slot was deleted and is on the free list
	links0 []uint32         // bottom-layer neighbours at [slot*m0:], n0[slot] used
	n0     []uint8
	upper  [][]uint32 // slot -> levels 1..L, each [count, M entries]
	free   []uint32   // dead slots to reuse, last first
	entry  int64      // entry slot, -1 when empty
	top    int        // entry's level
}

// New returns an empty graph for vectors of length dim. It returns an error
// wrapping [ErrConfig] if dim <= 0 or a Config field is out of range.
func New(dim int, cfg Config) (*Graph, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("%w: dimension %d", ErrConfig, dim)
	}
	g := &Graph{dim: dim}
	if err := g.init(cfg); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Graph) init(cfg Config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	g.cfg = cfg
	g.m0 = 2 * cfg.M
	g.resetLocked()
	return nil
}

func (g *Graph) resetLocked() {
	g.mu.state = state{slot: make(map[int64]uint32), entry: -1}
}

// Dim returns the vector length.
func (g *Graph) Dim() int { return g.dim }

// Config returns the parameters in use, with defaults filled in.
func (g *Graph) Config() Config {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.cfg
}

// Len returns the number of live (not deleted) nodes.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.mu.slot)
}

// Has reports whether id is in the graph.
func (g *Graph) Has(id int64) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	_, ok := g.mu.slot[id]
	return ok
}

// EdgeCount returns the number of directed links on all layers. A graph with
// many nodes and few edges was not built (for example, ids imported without
// links); callers use this to fall back to an exact scan.
func (g *Graph) EdgeCount() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := 0
	for s := range g.mu.ids {
		if g.mu.dead[s] {
			continue
		}
		for l := 0; l <= int(g.mu.levels[s]); l++ {
			n += len(g.neighboursLocked(uint32(s), l))
		}
	}
	return n
}

// Entry returns the id of the entry point, the node searches start from, and
// false if the graph is empty.
func (g *Graph) Entry() (int64, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if len(g.mu.slot) == 0 {
		return 0, false
	}
	return g.mu.ids[g.mu.entry], true
}

// MaxLevel returns the top layer (the entry point's level), 0 when empty.
func (g *Graph) MaxLevel() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.mu.top
}

// Bytes estimates the memory the graph holds: vectors, links, ids and the id
// map (counted at 48 bytes per entry).
func (g *Graph) Bytes() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n := 4*cap(g.mu.vecs) + 4*cap(g.mu.links0) + cap(g.mu.n0) + 8*cap(g.mu.ids) +
		cap(g.mu.levels) + cap(g.mu.dead) + 24*cap(g.mu.upper) + 48*len(g.mu.slot)
	for _, u := range g.mu.upper {
		n += 4 * cap(u)
	}
	return n
}

// VectorBytes returns the part of [Graph.Bytes] taken by the vectors.
func (g *Graph) VectorBytes() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return 4 * cap(g.mu.vecs)
}

// splitmix64 is a fixed, well-mixed hash; levels must never change between
// versions, since imports are validated against them.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Level returns the layer count minus one of id in a graph with parameter m:
// floor(-ln(u) / ln(m)) for u in (0, 1] derived from splitmix64(id), capped
// at 16. Levels depend only on the id, so the same ids build the same layers
// in any order and an import can be checked.
func Level(id int64, m int) int {
	u := float64(splitmix64(uint64(id))>>11+1) / (1 << 53) // (0, 1]
	l := int(-math.Log(u) / math.Log(float64(m)))
	return min(l, maxLevel)
}

func (g *Graph) level(id int64) int { return Level(id, g.cfg.M) }

func (g *Graph) capacity(level int) int {
	if level == 0 {
		return g.m0
	}
	return g.cfg.M
}

func (g *Graph) vecLocked(s uint32) []float32 {
	i := int(s) * g.dim
	return g.mu.vecs[i : i+g.dim : i+g.dim]
}

// neighboursLocked returns s's links at level; the slice aliases the graph.
func (g *Graph) neighboursLocked(s uint32, level int) []uint32 {
	if level == 0 {
		i := int(s) * g.m0
		return g.mu.links0[i : i+int(g.mu.n0[s])]
	}
	u := g.mu.upper[s][(level-1)*(g.cfg.M+1):]
	return u[1 : 1+u[0]]
}

// setNeighboursLocked replaces s's links at level; len(list) must not exceed
// the capacity.
func (g *Graph) setNeighboursLocked(s uint32, level int, list []uint32) {
	if level == 0 {
		i := int(s) * g.m0
		copy(g.mu.links0[i:i+g.m0], list)
		g.mu.n0[s] = uint8(len(list))
		return
	}
	u := g.mu.upper[s][(level-1)*(g.cfg.M+1):]
	u[0] = uint32(len(list))
	copy(u[1:1+g.cfg.M], list)
}

// allocLocked gives id a slot with vector v and no links, reusing a dead
// slot if there is one.
func (g *Graph) allocLocked(id int64, v []float32) uint32 {
	lvl := g.level(id)
	var s uint32
	if n := len(g.mu.free); n > 0 {
		s = g.mu.free[n-1]
		g.mu.free = g.mu.free[:n-1]
		g.mu.ids[s] = id
		copy(g.vecLocked(s), v)
		g.mu.levels[s] = uint8(lvl)
		g.mu.dead[s] = false
		g.mu.n0[s] = 0
	} else {
		s = uint32(len(g.mu.ids))
		g.mu.ids = append(g.mu.ids, id)
		g.mu.vecs = append(g.mu.vecs, v...)
		g.mu.levels = append(g.mu.levels, uint8(lvl))
		g.mu.dead = append(g.mu.dead, false)
		g.mu.n0 = append(g.mu.n0, 0)
		g.mu.links0 = slices.Grow(g.mu.links0, g.m0)[:len(g.mu.links0)+g.m0]
		g.mu.upper = append(g.mu.upper, nil)
	}
	if lvl > 0 {
		g.mu.upper[s] = make([]uint32, lvl*(g.cfg.M+1))
	} else {
		g.mu.upper[s] = nil
	}
	g.mu.slot[id] = s
	return s
}
