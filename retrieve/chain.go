package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/graph"
)

// Chain implements [holomem.Memory.Chain]. Like PPR, it reads the edges
// around the start breadth first with one indexed lookup per node (bounded
// by the neighbourhood limits), never every edge of the namespace.
func (m *Memory) Chain(ctx context.Context, id int64, kinds []holomem.EdgeKind, depth int) ([]holomem.ChainStep, error) {
	if g := holomem.GrantFrom(ctx); g != nil {
		if f, err := m.store.FindFactByID(ctx, id); err == nil {
			if err := allow(ctx, f.Namespace, false); err != nil {
				return nil, err
			}
		}
	}
	if _, err := m.store.FindFactByID(ctx, id); err != nil {
		return nil, fmt.Errorf("chain: %w", err)
	}
	if len(kinds) == 0 {
		kinds = []holomem.EdgeKind{holomem.EdgeCausal}
	}
	if depth <= 0 {
		depth = holomem.DefaultChainDepth
	}
	for _, k := range kinds {
		if err := k.Validate(); err != nil {
			return nil, fmt.Errorf("chain: %w", err)
		}
	}
	g, err := m.loadNeighbourhood(ctx, []int64{id}, depth, kinds...)
	if err != nil {
		return nil, fmt.Errorf("chain: %w", err)
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	out := []holomem.ChainStep{}
	for _, dir := range []graph.Direction{graph.Backward, graph.Forward} {
		for _, p := range graph.Chain(g, id, names, dir, depth) {
			f, err := m.store.FindFactByID(ctx, p.End())
			if err != nil {
				return nil, fmt.Errorf("chain: %w", err)
			}
			st := holomem.ChainStep{Direction: holomem.ChainForward, Path: p.IDs, Fact: f}
			if dir == graph.Backward {
				st.Direction = holomem.ChainBackward
			}
			for _, h := range p.Hops {
				st.Kinds = append(st.Kinds, holomem.EdgeKind(h.Kind))
			}
			out = append(out, st)
		}
	}
	return out, nil
}
