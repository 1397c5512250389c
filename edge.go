package holomem

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// EdgeKind names the relation an edge records. Users may add their own kinds
// (lower-case letters, digits, '_' and '-').
type EdgeKind string

// Built-in edge kinds.
const (
	// EdgeSimilar links nearest neighbours by embedding. The ones of
	// origin [OriginHNSW] are also the bottom layer of the vector index's
	// HNSW graph, whose other layers the index keeps apart
	// ([IndexGraphStore]).
	EdgeSimilar EdgeKind = "similar_to"
	// EdgeCausal links a cause to its effect: an issue to the PR or commit that fixed it.
	EdgeCausal EdgeKind = "causal"
	// EdgeTemporal links consecutive facts of one session or file history.
	EdgeTemporal EdgeKind = "temporal"
	// EdgeSupersedes links a newer fact (From) to the older fact it replaces (To).
	EdgeSupersedes EdgeKind = "supersedes"
)

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
	// OriginHNSW marks the similar_to edges written by the HNSW graph
	// build: the graph's bottom layer, rebuilt by `holomem graph build`,
	// never exported (see [ShowEdge]).
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

// IndexOwned reports whether the vector index wrote the edge (origin
// "hnsw": its graph's similar_to bottom layer). `graph build` replaces such
// edges, so no person or agent may write them, and a door shows them only
// when asked ([ShowEdge]).
func (e *Edge) IndexOwned() bool {
	return e.Origin == OriginHNSW
}

// ShowEdge is the one rule every door that lists edges follows (the CLI's
// `edges`, the web API and fact page, MCP's get, export): whether e is
// shown to a caller who asked for kinds (none: every kind).
//
// Every edge a person, a tool or an import made is shown. The similar_to
// edges the vector index made ([Edge.IndexOwned]) are the memory's
// nearest-neighbour graph: recall walks them, but each fact has dozens,
// they only say "close by embedding", and the next graph build replaces
// them. So they are shown only to a caller who names their kind, and
// export (which asks for no kind) leaves them to `graph build`.
func ShowEdge(e *Edge, kinds []EdgeKind) bool {
	return !e.IndexOwned() || slices.Contains(kinds, e.Kind)
}

// ShownEdges keeps the edges [ShowEdge] shows for kinds, in order. It
// reuses es.
func ShownEdges(es []*Edge, kinds []EdgeKind) []*Edge {
	return slices.DeleteFunc(es, func(e *Edge) bool { return !ShowEdge(e, kinds) })
}

// ValidateLink reports whether a person or an agent may write the edge by
// hand (CLI link, HTTP, MCP): [Edge.Validate] plus the rule that the vector
// index's edges are its own. Origin "hnsw" is reserved: a hand-made one
// would corrupt the index's search, and the next `graph build` would
// delete it. Every door that writes edges calls this through
// [Memory.Link]; imports and the graph build do not.
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
// kind k by hand: any well-formed kind.
func ValidateUnlink(k EdgeKind) error {
	return k.Validate()
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
