package web

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/graph"
)

// Bounds of the graph pages.
const (
	// graphMaxNodes caps the neighbourhood picture: past it the page says
	// how many neighbours it left out.
	graphMaxNodes = 40
	// graphEdgesPerFact bounds the edges read around one fact.
	graphEdgesPerFact = 200
	// centralMaxEdges bounds the edges PageRank reads for a namespace.
	centralMaxEdges = 200_000
	// centralTop is how many central facts the page lists.
	centralTop = 25
	// Picture geometry, in SVG user units (the picture scales to its box).
	graphSize   = 640.0
	graphNodeR  = 13.0
	graphRing1  = 150.0
	graphRing2  = 285.0
	graphCenter = graphSize / 2
)

// shownEdge reports whether a page draws edges of kind k: the HNSW upper
// layers are index structure, not meaning.
func shownEdge(k holomem.EdgeKind) bool { return !strings.HasPrefix(string(k), "hnsw_") }

// kindClasses are the colours (style.css .ek-*) of the built-in kinds;
// other kinds get one of kindHashClasses by the hash of their name.
var kindClasses = map[holomem.EdgeKind]string{
	holomem.EdgeCausal: "ek-causal", holomem.EdgeSupersedes: "ek-supersedes", holomem.EdgeSimilar: "ek-similar",
	holomem.EdgeTemporal: "ek-temporal", "part_of": "ek-part",
}

const kindHashClasses = 4

// kindClass is the CSS class that colours edges of kind k.
func kindClass(k holomem.EdgeKind) string {
	if c, ok := kindClasses[k]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(k))
	return "ek-h" + strconv.Itoa(int(h.Sum32()%kindHashClasses))
}

// graphNode is one drawn fact.
type graphNode struct {
	ID    int64
	Depth int
	X, Y  float64
	// LX, LY place the node's label.
	LX, LY float64
	Fact   *holomem.Fact // nil when it could not be read
}

// graphEdge is one drawn edge, its ends cut back to the node circles.
type graphEdge struct {
	From, To       int64
	Kind           holomem.EdgeKind
	Class          string
	X1, Y1, X2, Y2 float64
}

// legendEntry is one edge kind in the picture's legend.
type legendEntry struct {
	Kind  holomem.EdgeKind
	Class string
	Count int
}

type neighbourData struct {
	Fact   *holomem.Fact
	Depth  int
	Nodes  []graphNode
	Edges  []graphEdge
	Legend []legendEntry
	// Classes are the edge classes drawn (one arrow marker each).
	Classes []string
	// Cut is how many facts the picture left out (graphMaxNodes).
	Cut  int
	Size float64
}

// handleGraphPage draws a fact's neighbourhood (?depth=1 or 2) as an SVG
// made on the server: no script, so the page works under the CSP. The
// layout is radial by depth, each ring ordered by id (depth 2 grouped by
// the neighbour it was reached from), so the same graph gives the same
// picture.
func (s *Server) handleGraphPage(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	depth := 1
	if d := r.URL.Query().Get("depth"); d != "" {
		if depth, err = strconv.Atoi(d); err != nil || depth < 1 || depth > 2 {
			return fmt.Errorf("%w: depth %q is not 1 or 2", holomem.ErrInvalid, d)
		}
	}
	f, err := s.store.FindFactByID(r.Context(), id)
	if err != nil {
		return err
	}
	d, err := s.neighbourhood(r.Context(), f, depth)
	if err != nil {
		return err
	}
	p.Title, p.Nav, p.Namespace, p.Data = fmt.Sprintf("Graph of #%d", id), "graph", f.Namespace, d
	return s.render(w, r, "graph", p)
}

// neighbourhood collects the facts within depth edges of f (breadth
// first, each level by id, at most graphMaxNodes) and lays them out.
func (s *Server) neighbourhood(ctx context.Context, f *holomem.Fact, depth int) (*neighbourData, error) {
	d := &neighbourData{Fact: slim(f), Depth: depth, Size: graphSize}
	level := map[int64]int{f.ID: 0}
	parent := map[int64]int64{}
	order := []int64{f.ID}
	edgeSet := map[[2]int64]map[holomem.EdgeKind]bool{}
	var edges []*holomem.Edge
	frontier := []int64{f.ID}
	seenCut := map[int64]bool{}
	for lv := 1; lv <= depth; lv++ {
		var next []int64
		for _, at := range frontier {
			es, err := s.store.FindEdges(ctx, holomem.EdgeFilter{FactID: at, Limit: graphEdgesPerFact})
			if err != nil {
				return nil, fmt.Errorf("edges of %d: %w", at, err)
			}
			var found []int64
			for _, e := range es {
				if !shownEdge(e.Kind) {
					continue
				}
				edges = append(edges, e)
				other := e.To
				if other == at {
					other = e.From
				}
				if _, ok := level[other]; !ok && !slices.Contains(found, other) {
					found = append(found, other)
				}
			}
			slices.Sort(found)
			for _, o := range found {
				if len(order) >= graphMaxNodes {
					if !seenCut[o] {
						seenCut[o] = true
						d.Cut++
					}
					continue
				}
				level[o], parent[o] = lv, at
				order = append(order, o)
				next = append(next, o)
			}
		}
		frontier = next
	}
	// Only edges between drawn nodes, each (pair, kind) once.
	for _, e := range edges {
		_, a := level[e.From]
		_, b := level[e.To]
		if !a || !b {
			continue
		}
		k := [2]int64{e.From, e.To}
		if edgeSet[k] == nil {
			edgeSet[k] = map[holomem.EdgeKind]bool{}
		}
		if edgeSet[k][e.Kind] {
			continue
		}
		edgeSet[k][e.Kind] = true
		d.Edges = append(d.Edges, graphEdge{From: e.From, To: e.To, Kind: e.Kind, Class: kindClass(e.Kind)})
	}
	slices.SortFunc(d.Edges, func(a, b graphEdge) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		if a.From != b.From {
			return cmpInt(a.From, b.From)
		}
		return cmpInt(a.To, b.To)
	})
	facts, _, err := s.store.FindFacts(ctx, holomem.FactFilter{IDs: order, IncludeSuperseded: true, Lean: true})
	if err != nil {
		return nil, fmt.Errorf("facts of the graph: %w", err)
	}
	byID := make(map[int64]*holomem.Fact, len(facts))
	for _, x := range facts {
		byID[x.ID] = slim(x)
	}
	d.Nodes = layoutRadial(order, level, parent)
	pos := make(map[int64]int, len(d.Nodes))
	for i := range d.Nodes {
		d.Nodes[i].Fact = byID[d.Nodes[i].ID]
		pos[d.Nodes[i].ID] = i
	}
	counts := map[holomem.EdgeKind]int{}
	for i := range d.Edges {
		e := &d.Edges[i]
		a, b := d.Nodes[pos[e.From]], d.Nodes[pos[e.To]]
		e.X1, e.Y1, e.X2, e.Y2 = trimLine(a.X, a.Y, b.X, b.Y, graphNodeR)
		counts[e.Kind]++
	}
	for k, n := range counts {
		d.Legend = append(d.Legend, legendEntry{Kind: k, Class: kindClass(k), Count: n})
	}
	slices.SortFunc(d.Legend, func(a, b legendEntry) int { return strings.Compare(string(a.Kind), string(b.Kind)) })
	for _, l := range d.Legend {
		if !slices.Contains(d.Classes, l.Class) {
			d.Classes = append(d.Classes, l.Class)
		}
	}
	return d, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// layoutRadial places the start in the centre and each depth on its own
// ring, starting at the top and going clockwise. Ring 1 is ordered by id;
// the ring-2 facts reached from one ring-1 fact spread around its angle
// (by id), never exactly behind it, so an edge does not run through a
// node. Labels sit outside each node, away from the centre, where the
// edges to the inner ring do not pass.
func layoutRadial(order []int64, level map[int64]int, parent map[int64]int64) []graphNode {
	var ring1 []int64
	children := map[int64][]int64{}
	for _, id := range order[1:] {
		if level[id] == 1 {
			ring1 = append(ring1, id)
		} else {
			children[parent[id]] = append(children[parent[id]], id)
		}
	}
	slices.Sort(ring1)
	out := []graphNode{{ID: order[0], X: graphCenter, Y: graphCenter, LX: graphCenter, LY: graphCenter + 2*graphNodeR + 4}}
	place := func(id int64, depth int, radius, a float64) {
		out = append(out, graphNode{ID: id, Depth: depth,
			X: round1(graphCenter + radius*math.Cos(a)), Y: round1(graphCenter + radius*math.Sin(a)),
			LX: round1(graphCenter + (radius+2*graphNodeR+2)*math.Cos(a)), LY: round1(graphCenter + (radius+2*graphNodeR+2)*math.Sin(a) + 4)})
	}
	slot := 2 * math.Pi / float64(max(len(ring1), 1))
	for i, id := range ring1 {
		a := slot*float64(i) - math.Pi/2
		place(id, 1, graphRing1, a)
		kids := children[id]
		slices.Sort(kids)
		// Spread over most of the parent's slot (at most 100°).
		span := math.Min(slot*0.8, math.Pi*5/9)
		for j, k := range kids {
			off := span * ((float64(j)+0.5)/float64(len(kids)) - 0.5)
			if len(kids) == 1 {
				off = span / 4
			}
			place(k, 2, graphRing2, a+off)
		}
	}
	return out
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// trimLine shortens the segment by r at both ends, so an edge starts and
// ends at the node circles (and its arrow head shows).
func trimLine(x1, y1, x2, y2, r float64) (float64, float64, float64, float64) {
	dx, dy := x2-x1, y2-y1
	l := math.Hypot(dx, dy)
	if l <= 2*r {
		return x1, y1, x2, y2
	}
	ux, uy := dx/l, dy/l
	return round1(x1 + ux*r), round1(y1 + uy*r), round1(x2 - ux*(r+2)), round1(y2 - uy*(r+2))
}

// centralRow is one fact of the central facts list.
type centralRow struct {
	Rank   int
	ID     int64
	Score  float64
	Degree int
	Fact   *holomem.Fact
}

type centralData struct {
	Rows  []centralRow
	Kinds []legendEntry
	Edges int
	// Cut is true when the namespace has more than centralMaxEdges edges
	// of the chosen kinds: the ranking then covers the first ones.
	Cut     bool
	Similar bool
	// Extra are the kinds ?kind= added to the built-in ones.
	Extra []holomem.EdgeKind
	// At is when the ranking was computed (it is reused for centralTTL).
	At time.Time
}

// handleCentralPage lists the most central facts of a namespace: PageRank
// over its causal, part_of, supersedes and temporal edges plus the kinds
// named by ?kind= (never the HNSW layers; similar_to only with ?similar=1:
// it is the vector index's neighbour list and would outweigh the edges
// people and imports made), ties by id, with each fact's degree.
func (s *Server) handleCentralPage(w http.ResponseWriter, r *http.Request, p *page) error {
	ctx := r.Context()
	v := r.URL.Query()
	d := &centralData{Similar: v.Get("similar") != ""}
	// The kinds are named, not discovered: listing a namespace's kinds
	// (Stats) cost more than the ranking. Other kinds join with ?kind=.
	kinds := []holomem.EdgeKind{holomem.EdgeCausal, "part_of", holomem.EdgeSupersedes, holomem.EdgeTemporal}
	if d.Similar {
		kinds = append(kinds, holomem.EdgeSimilar)
	}
	for _, k := range v["kind"] {
		kind := holomem.EdgeKind(strings.TrimSpace(k))
		if err := kind.Validate(); err != nil {
			return err
		}
		if shownEdge(kind) && !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
			d.Extra = append(d.Extra, kind)
		}
	}
	slices.Sort(kinds)
	p.Title, p.Nav, p.Data = "Central facts", "graph", d
	key := p.Namespace + "\x00" + fmt.Sprint(kinds)
	rk, ok := s.ui.central.get(key, time.Now())
	if !ok {
		var err error
		if rk, err = s.rankCentral(ctx, p.Namespace, kinds); err != nil {
			return err
		}
		s.ui.central.put(key, rk)
	}
	d.Edges, d.Cut, d.At = rk.edges, rk.cut, rk.at
	for _, k := range kinds {
		if n := rk.counts[k]; n > 0 {
			d.Kinds = append(d.Kinds, legendEntry{Kind: k, Class: kindClass(k), Count: n})
		}
	}
	ranks := rk.ranks
	ids := make([]int64, len(ranks))
	for i, x := range ranks {
		ids[i] = x.ID
	}
	facts, _, err := s.store.FindFacts(ctx, holomem.FactFilter{IDs: ids, IncludeSuperseded: true, Lean: true})
	if err != nil {
		return fmt.Errorf("central facts: %w", err)
	}
	byID := make(map[int64]*holomem.Fact, len(facts))
	for _, f := range facts {
		byID[f.ID] = slim(f)
	}
	for i, x := range ranks {
		d.Rows = append(d.Rows, centralRow{Rank: i + 1, ID: x.ID, Score: x.Score, Degree: rk.degree[x.ID], Fact: byID[x.ID]})
	}
	return s.render(w, r, "central", p)
}

// centralRanking is one namespace's central facts as computed: the top
// ranks with their degrees and what the ranking read.
type centralRanking struct {
	at     time.Time
	ranks  []graph.Rank
	degree map[int64]int
	counts map[holomem.EdgeKind]int
	edges  int
	cut    bool
}

// rankCentral reads the namespace's edges of kinds (at most
// centralMaxEdges) and ranks the facts by PageRank.
func (s *Server) rankCentral(ctx context.Context, ns string, kinds []holomem.EdgeKind) (*centralRanking, error) {
	es, err := s.store.FindEdges(ctx, holomem.EdgeFilter{Namespace: ns, Kinds: kinds, Limit: centralMaxEdges + 1})
	if err != nil {
		return nil, fmt.Errorf("edges of %s: %w", ns, err)
	}
	rk := &centralRanking{at: time.Now(), counts: map[holomem.EdgeKind]int{}}
	if len(es) > centralMaxEdges {
		rk.cut, es = true, es[:centralMaxEdges]
	}
	rk.edges = len(es)
	ge := make([]graph.Edge, len(es))
	degree := map[int64]int{}
	for i, e := range es {
		ge[i] = graph.Edge{From: e.From, To: e.To, Kind: string(e.Kind), Weight: e.Weight}
		degree[e.From]++
		degree[e.To]++
		rk.counts[e.Kind]++
	}
	// Every kind weighs as in recall's PPR; user kinds weigh like temporal
	// links rather than not at all.
	weights := graph.DefaultKindWeights()
	for _, k := range kinds {
		if _, ok := weights[string(k)]; !ok {
			weights[string(k)] = weights[string(holomem.EdgeTemporal)]
		}
	}
	g := graph.New(ge, weights)
	// PageRank is the personalized walk that restarts anywhere: every node
	// a seed of the same weight.
	seeds := make(map[int64]float64, g.Len())
	for _, id := range g.Nodes() {
		seeds[id] = 1
	}
	rk.ranks = graph.PersonalizedPageRank(g, seeds, graph.PPROptions{Damping: 0.85, Limit: centralTop})
	rk.degree = make(map[int64]int, len(rk.ranks))
	for _, r := range rk.ranks {
		rk.degree[r.ID] = degree[r.ID]
	}
	return rk, nil
}

// centralTTL is how long a central facts ranking is reused: reading every
// edge of a namespace takes about 0.6 s at 100k facts, and centrality
// moves slowly. The page says when its ranking was computed.
const centralTTL = time.Minute

// centralCacheSize bounds the rankings kept (namespace and kinds).
const centralCacheSize = 32

// centralCache keeps recent central facts rankings. It is safe for
// concurrent use; two requests that miss at once both compute.
type centralCache struct {
	mu sync.Mutex
	m  map[string]*centralRanking
}

func newCentralCache() *centralCache { return &centralCache{m: map[string]*centralRanking{}} }

func (c *centralCache) get(key string, now time.Time) (*centralRanking, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rk, ok := c.m[key]
	if !ok || now.Sub(rk.at) > centralTTL {
		return nil, false
	}
	return rk, true
}

func (c *centralCache) put(key string, rk *centralRanking) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= centralCacheSize {
		clear(c.m)
	}
	c.m[key] = rk
}
