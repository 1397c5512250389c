package holomem

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// EdgeKind names the relation an edge records. Users may add their own kinds
// (lower-case letters, digits, '_' and '-').
type EdgeKind string

// Built-in edge kinds.
const (
	// EdgeSimilar links nearest neighbours by embedding; it is the bottom
	// layer of the HNSW index.
	EdgeSimilar EdgeKind = "similar_to"
	// EdgeCausal links a cause to its effect: an issue to the PR or commit that fixed it.
	EdgeCausal EdgeKind = "causal"
	// EdgeTemporal links consecutive facts of one session or file history.
	EdgeTemporal EdgeKind = "temporal"
	// EdgeSupersedes links a newer fact (From) to the older fact it replaces (To).
	EdgeSupersedes EdgeKind = "supersedes"
)

// HNSWMaxLevel is the highest HNSW layer that gets an edge kind of its own
// (the hnsw package caps levels at 16).
const HNSWMaxLevel = 16

// HNSWKind returns the edge kind that stores layer level of the HNSW index.
// Layer 0 is [EdgeSimilar] (with Origin [OriginHNSW]); layers 1..16 are
// hnsw_l1 ... hnsw_l16, one kind per layer because the edges table keys on
// (from, to, kind) and the same pair can be linked on several layers. It
// returns "" for a level outside 0..16.
func HNSWKind(level int) EdgeKind {
	switch {
	case level == 0:
		return EdgeSimilar
	case level < 0 || level > HNSWMaxLevel:
		return ""
	}
	return EdgeKind("hnsw_l" + strconv.Itoa(level))
}

// IsHNSWKind reports whether k is one of the HNSW upper-layer kinds
// (hnsw_l1 ... hnsw_l16): index structure, not meaning. [EdgeSimilar] is
// not one of them, whatever its origin.
func IsHNSWKind(k EdgeKind) bool {
	return HNSWLevel(k) > 0
}

// HNSWLevel returns the layer an HNSW upper-layer kind stores (1..16), or
// 0 if k is not one.
func HNSWLevel(k EdgeKind) int {
	rest, ok := strings.CutPrefix(string(k), "hnsw_l")
	if !ok || rest == "" || rest[0] == '0' {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || n > HNSWMaxLevel {
		return 0
	}
	return n
}

// Validate reports whether k is a well-formed kind.
func (k EdgeKind) Validate() error {
	if !validEdgeKind(string(k)) {
		return fmt.Errorf("%w: edge kind %q: use 1-64 lower-case letters, digits, '_' or '-', starting with a letter", ErrInvalid, string(k))
	}
	return nil
}

// Edge origins say who made an edge, so doctor can tell when one source stops.
const (
	OriginUser   = "user"
	OriginAuto   = "auto"
	OriginImport = "import"
	// OriginHNSW marks the edges written by the HNSW graph build: its
	// similar_to bottom layer and its hnsw_l* upper layers. They are index
	// structure, rebuilt by `holomem graph build`, never exported.
	OriginHNSW = "hnsw"
)

// Edge is a typed, weighted link between two facts.
type Edge struct {
	From      int64     `json:"from"`
	To        int64     `json:"to"`
	Kind      EdgeKind  `json:"kind"`
	Weight    float64   `json:"weight"`
	Origin    string    `json:"origin,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Validate reports whether the edge can be stored: known shape, no self-loop,
// a finite non-negative weight.
func (e *Edge) Validate() error {
	if err := e.Kind.Validate(); err != nil {
		return err
	}
	if e.From <= 0 || e.To <= 0 {
		return fmt.Errorf("%w: edge needs two fact ids, got %d -> %d", ErrInvalid, e.From, e.To)
	}
	if e.From == e.To {
		return fmt.Errorf("%w: an edge from fact %d to itself is a self-loop", ErrInvalid, e.From)
	}
	if math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) || e.Weight < 0 {
		return fmt.Errorf("%w: edge weight %v must be a finite number >= 0", ErrInvalid, e.Weight)
	}
	return validateLabel("origin", e.Origin)
}

// IndexOwned reports whether the vector index owns the edge: its hnsw_l*
// upper layers and everything of origin "hnsw" (its similar_to bottom
// layer). Such edges are index structure: `graph build` rebuilds them, so
// export leaves them out and no person or agent may write them.
func (e *Edge) IndexOwned() bool {
	return IsHNSWKind(e.Kind) || e.Origin == OriginHNSW
}

// ValidateLink reports whether a person or an agent may write the edge by
// hand (CLI link, HTTP, MCP): [Edge.Validate] plus the rule that the vector
// index's edges are its own. The hnsw_l* kinds and origin "hnsw" are
// reserved: a hand-made one would corrupt the index's search, and the next
// `graph build` would delete it. Every door that writes edges calls this
// through [Memory.Link]; imports and the graph build do not.
func (e *Edge) ValidateLink() error {
	if err := e.Validate(); err != nil {
		return err
	}
	if e.Origin == OriginHNSW {
		return fmt.Errorf("%w: origin %q is reserved for the vector index", ErrInvalid, e.Origin)
	}
	return ValidateUnlink(e.Kind)
}

// ValidateUnlink reports whether a person or an agent may delete edges of
// kind k by hand: a well-formed kind that is not one of the vector index's
// layers (see [Edge.ValidateLink]).
func ValidateUnlink(k EdgeKind) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if IsHNSWKind(k) {
		return fmt.Errorf("%w: kind %q is reserved for the vector index", ErrInvalid, k)
	}
	return nil
}

// EdgeFilter selects edges for [Store.FindEdges]. Zero fields do not filter.
type EdgeFilter struct {
	// FactID matches edges touching this fact in either direction.
	FactID int64
	From   int64
	To     int64
	Kinds  []EdgeKind
	Origin string
	// Namespace restricts to edges whose endpoints live in it.
	Namespace string
	Limit     int
}

// Directions of a [ChainStep].
const (
	// ChainBackward steps go against the edges: what led to the start (the
	// issue a fix closed).
	ChainBackward = "backward"
	// ChainForward steps follow the edges: what the start led to (the fix).
	ChainForward = "forward"
)

// DefaultChainDepth is how many hops [Memory.Chain] follows when asked for 0.
const DefaultChainDepth = 5

// ChainStep is one fact a chain reaches from its start, with the shortest
// path there.
type ChainStep struct {
	// Direction is ChainBackward or ChainForward.
	Direction string `json:"direction"`
	// Path runs from the start to Fact, ids included.
	Path  []int64    `json:"path"`
	Kinds []EdgeKind `json:"kinds"`
	Fact  *Fact      `json:"fact"`
}

// validEdgeKind reports whether s matches ^[a-z][a-z0-9_-]{0,63}$. It is
// written out rather than compiled: the expression's bounded repetition
// made a program that every process built at start (35 of the prompt
// hook's page faults), though few ever check a kind.
func validEdgeKind(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
