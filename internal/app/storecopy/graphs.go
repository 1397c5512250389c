package storecopy

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/index"
)

// BuildGraphs builds on dst the vector index's HNSW graphs for every
// model src has a stored graph of (index.StoredGraphModels), as `holomem
// graph build` would with that model, so the copy searches as the source
// did instead of scanning exactly. The graphs are not copied: their links
// hold the source's ids, and a build over the destination's vectors is
// as good. It needs no embedding model: the vectors are in dst.
func BuildGraphs(ctx context.Context, src, dst holomem.Store, progress holomem.Progress) ([]index.NamespaceBuild, error) {
	models, err := index.StoredGraphModels(ctx, src)
	if err != nil {
		return nil, err
	}
	var out []index.NamespaceBuild
	for _, m := range models {
		rep, err := index.New(dst, m.Model, m.Dim, index.Config{}, nil).Build(ctx, progress)
		if err != nil {
			return out, fmt.Errorf("build the %s graphs on the destination: %w", m.Model, err)
		}
		out = append(out, rep.Namespaces...)
	}
	return out, nil
}
