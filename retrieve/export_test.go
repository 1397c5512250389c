package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// SearchVector runs the semantic index's search for q and says which path
// answered ("exact", "hnsw" or "fallback").
func SearchVector(ctx context.Context, m *Memory, ns string, q []float32, k int) ([]vec.Result, string, error) {
	return m.sem.searchMode(ctx, ns, q, k)
}

// ExactSearch is the reference: a float32 scan of the namespace's matrix.
func ExactSearch(m *Memory, ns string, q []float32, k int) ([]vec.Result, error) {
	m.sem.mu.RLock()
	defer m.sem.mu.RUnlock()
	sp := m.sem.mu.spaces[ns]
	if sp == nil {
		return nil, fmt.Errorf("no space %q", ns)
	}
	return sp.mat.Search(q, k, nil)
}

// SetRebuildMax changes the size up to which a corrupt graph is rebuilt at load.
func SetRebuildMax(m *Memory, n int) { m.sem.cfg.rebuildMax = n }

// SabotageGraph replaces the namespace's in-memory graph by one with the
// same links over shuffled vectors: structurally valid, useless for search.
func SabotageGraph(m *Memory, ns string) error {
	s := m.sem
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.mu.spaces[ns]
	if sp == nil || sp.graph == nil {
		return fmt.Errorf("no graph in %q", ns)
	}
	links := sp.graph.Export()
	entry, _ := sp.graph.Entry()
	ids, vecs := sp.mat.Snapshot()
	var inGraph []int64
	var vs [][]float32
	for i, id := range ids {
		if sp.graph.Has(id) {
			inGraph = append(inGraph, id)
			vs = append(vs, vecs[i])
		}
	}
	// Rotate the vectors by a third: every id gets a stranger's vector.
	shift := len(vs) / 3
	rot := append(append([][]float32{}, vs[shift:]...), vs[:shift]...)
	g, err := hnsw.New(s.dim, sp.graph.Config())
	if err != nil {
		return err
	}
	if err := g.Import(entry, links, inGraph, rot); err != nil {
		return err
	}
	sp.graph = g
	return nil
}
