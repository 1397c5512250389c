package index

import (
	"fmt"

	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// ExactSearch is the reference: a float32 scan of the namespace's matrix.
func ExactSearch(s *Index, ns string, q []float32, k int) ([]vec.Result, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sp := s.mu.spaces[ns]
	if sp == nil {
		return nil, fmt.Errorf("no space %q", ns)
	}
	return sp.mat.Search(q, k, nil)
}

// SetRebuildMax changes the size up to which a corrupt graph is rebuilt at load.
func SetRebuildMax(s *Index, n int) { s.cfg.rebuildMax = n }

// SabotageGraph replaces the namespace's in-memory graph by one with the
// same links over shuffled vectors: structurally valid, useless for search.
func SabotageGraph(s *Index, ns string) error {
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
