package retrieve

import (
	"context"
	"fmt"
	"slices"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/graph"
)

const (
	// userKindWeight is the PageRank weight of user-defined edge kinds: a
	// link a person made means something, about as much as similarity.
	userKindWeight = 0.5
	// pprHops bounds the walk to the seeds' neighbourhood, which keeps a
	// query's cost independent of the graph's size.
	pprHops = 3
	// pprSeeds is how many of the best candidates seed the walk.
	pprSeeds = 10
	// causalDepth bounds how far recall follows causal edges from a hit.
	causalDepth = 2
	// causalDiscount scales a hit's score per causal hop.
	causalDiscount = 0.9
)

// Neighbourhood bounds: how many nodes one query may expand and how many
// edges it may read while gathering the graph around its seeds.
const (
	maxNeighbourhoodNodes = 2_000
	maxNeighbourhoodEdges = 50_000
)

// loadNeighbourhood reads the edges within hops of the seeds, breadth
// first, with one indexed lookup per expanded node (edges never cross
// namespaces, so the seeds' namespace is implied), and returns them as a
// graph. A query's graph work then depends on the seeds' surroundings, not
// on the size of the store. HNSW upper layers are index structure, not
// meaning, and are skipped.
func (m *Memory) loadNeighbourhood(ctx context.Context, seeds []int64, hops int, kinds ...holomem.EdgeKind) (*graph.Graph, error) {
	expanded := map[int64]bool{}
	type key struct {
		from, to int64
		kind     holomem.EdgeKind
	}
	have := map[key]bool{}
	var ge []graph.Edge
	weights := graph.DefaultKindWeights()
	frontier := slices.Clone(seeds)
	slices.Sort(frontier)
	for h := 0; h < hops && len(frontier) > 0; h++ {
		var next []int64
		for _, id := range frontier {
			if expanded[id] {
				continue
			}
			if len(expanded) == maxNeighbourhoodNodes || len(ge) >= maxNeighbourhoodEdges {
				return graph.New(ge, weights), nil
			}
			expanded[id] = true
			edges, err := m.store.FindEdges(ctx, holomem.EdgeFilter{FactID: id, Kinds: kinds})
			if err != nil {
				return nil, fmt.Errorf("load edges of %d: %w", id, err)
			}
			for _, e := range edges {
				k := key{e.From, e.To, e.Kind}
				if have[k] {
					continue
				}
				have[k] = true
				if _, ok := weights[string(e.Kind)]; !ok {
					weights[string(e.Kind)] = userKindWeight
				}
				ge = append(ge, graph.Edge{From: e.From, To: e.To, Kind: string(e.Kind), Weight: e.Weight})
				other := e.To
				if other == id {
					other = e.From
				}
				if !expanded[other] {
					next = append(next, other)
				}
			}
		}
		slices.Sort(next)
		frontier = slices.Compact(next)
	}
	return graph.New(ge, weights), nil
}

// addPPR seeds Personalized PageRank with the best candidates (weighted by
// their relevance so far), adds the ppr score (normalised so the top node
// scores 1) to every candidate, and brings in nodes the walk found that no
// other channel did: the "buried hub" a broad query needs.
func (m *Memory) addPPR(ctx context.Context, cands map[int64]*candidate, q holomem.Query, w holomem.Weights) error {
	pre := w.Clone()
	delete(pre, holomem.ChannelPPR)
	seedHits := m.rank(cands, pre)
	if len(seedHits) == 0 {
		return nil
	}
	best := seedHits[:min(pprSeeds, len(seedHits))]
	seedIDs := make([]int64, len(best))
	for i, h := range best {
		seedIDs[i] = h.Fact.ID
	}
	g, err := m.loadNeighbourhood(ctx, seedIDs, pprHops+1)
	if err != nil {
		return err
	}
	seeds := map[int64]float64{}
	for _, h := range best {
		if g.Has(h.Fact.ID) {
			seeds[h.Fact.ID] = h.Relevance
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	ranks := graph.PersonalizedPageRank(g, seeds, graph.PPROptions{Hops: pprHops, Limit: max(q.Limit*candidateMultiplier, minCandidates)})
	if len(ranks) == 0 {
		return nil
	}
	top := ranks[0].Score
	for _, r := range ranks {
		c := cands[r.ID]
		if c == nil {
			c = &candidate{}
			cands[r.ID] = c
		}
		c.set(holomem.ChannelPPR, r.Score/top)
	}
	return m.loadCandidates(ctx, cands, q)
}

// followCausal adds the facts linked to the hits by causal edges (both
// directions: the PR that fixed an issue, the issue a PR fixed), up to
// causalDepth hops, with the path in Hit.Via and the parent's score
// discounted per hop. Hits already present keep their own score.
func (m *Memory) followCausal(ctx context.Context, hits []holomem.Hit, q holomem.Query, w holomem.Weights) ([]holomem.Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	have := map[int64]bool{}
	var from []int64
	for i, h := range hits {
		have[h.Fact.ID] = true
		if i < q.Limit {
			from = append(from, h.Fact.ID)
		}
	}
	g, err := m.loadNeighbourhood(ctx, from, causalDepth, holomem.EdgeCausal)
	if err != nil {
		return nil, err
	}
	added := map[int64]*candidate{}
	parentScore := map[int64]float64{}
	for _, h := range hits[:min(q.Limit, len(hits))] {
		for _, p := range graph.Chain(g, h.Fact.ID, []string{string(holomem.EdgeCausal)}, graph.Both, causalDepth) {
			end := p.End()
			if have[end] {
				continue
			}
			s := h.Score
			for range p.Hops {
				s *= causalDiscount
			}
			if s > parentScore[end] {
				parentScore[end] = s
				added[end] = &candidate{via: slices.Clone(p.IDs), scores: holomem.Scores{}}
			}
		}
	}
	if len(added) == 0 {
		return hits, nil
	}
	if err := m.loadCandidates(ctx, added, q); err != nil {
		return nil, err
	}
	for id, c := range added {
		d := m.decay(c.fact)
		hits = append(hits, holomem.Hit{
			Fact: c.fact, Score: parentScore[id], Relevance: parentScore[id], Decay: d, Via: c.via, Scores: c.scores,
		})
	}
	sortHits(hits)
	return hits, nil
}
