package storecopy_test

import (
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/internal/app/storecopy"
	"github.com/holomem/holomem/internal/testkit/testutil"
)

// TestBuildGraphs: after a copy the destination has no graph of its own
// (the source's links hold the source's ids); BuildGraphs builds one for
// the source's model, and it answers each sampled fact's vector with that
// fact first, walking the graph.
func TestBuildGraphs(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(*testing.T) holomem.Store
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}} {
		open := tt.open
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			src, dst := openSQLite(t), open(t)
			snap := testutil.BuildGraph(t, src)
			if _, err := storecopy.Copy(ctx, src, dst, storecopy.Options{}); err != nil {
				t.Fatal(err)
			}
			if ms, err := index.StoredGraphModels(ctx, dst); err != nil || len(ms) != 0 {
				t.Fatalf("graphs on the destination after the copy: %v, %v; want none", ms, err)
			}
			builds, err := storecopy.BuildGraphs(ctx, src, dst, nil)
			if err != nil {
				t.Fatal(err)
			}
			models, err := index.StoredGraphModels(ctx, dst)
			if err != nil || len(models) != 1 || len(builds) != 1 || builds[0].Vectors != 400 {
				t.Fatalf("after BuildGraphs: models %v (%v), builds %+v", models, err, builds)
			}
			if links, err := dst.IndexLinks(ctx, holomem.DefaultNamespace); err != nil || len(links) == 0 {
				t.Fatalf("destination's upper layers: %d, %v", len(links), err)
			}
			idx := index.New(dst, models[0].Model, models[0].Dim, index.Config{ExactBelow: 1}, nil)
			if err := idx.Load(ctx); err != nil {
				t.Fatal(err)
			}
			for i, q := range snap.Queries {
				res, mode, err := idx.SearchMode(ctx, holomem.DefaultNamespace, q, 10)
				if err != nil || mode != index.ModeHNSW || len(res) != 10 {
					t.Fatalf("query %d: %d results in mode %s, %v", i, len(res), mode, err)
				}
				f, err := dst.FindFactByID(ctx, res[0].ID)
				if err != nil || f.Content != snap.Contents[i] {
					t.Fatalf("query %d: first %d (%v), want the fact %q", i, res[0].ID, err, snap.Contents[i])
				}
			}
		})
	}
}
