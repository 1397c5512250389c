package main

import (
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/sqlite"
)

// TestCLI_CopyBuildsGraphs: `holomem copy` leaves the source's graph
// behind (its links hold the source's ids) and builds one on the
// destination, so the copy searches by the graph, not by exact scans;
// --no-graph leaves that to `graph build`.
func TestCLI_CopyBuildsGraphs(t *testing.T) {
	c := newCLI(t)
	ctx := t.Context()
	src, err := sqlite.Open(ctx, c.db)
	if err != nil {
		t.Fatal(err)
	}
	testutil.BuildGraph(t, src)
	src.Close()
	for _, tt := range []struct {
		name  string
		args  []string
		built bool
	}{
		{"Default", nil, true},
		{"NoGraph", []string{"--no-graph"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "dst.db")
			var out struct {
				Verified bool
				Graphs   []index.NamespaceBuild
			}
			c.json(&out, append([]string{"copy", "--from", c.db, "--to", dst}, tt.args...)...)
			if !out.Verified || (len(out.Graphs) == 1) != tt.built {
				t.Fatalf("copy %v: verified %v, graphs %+v", tt.args, out.Verified, out.Graphs)
			}
			s, err := sqlite.Open(ctx, dst)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			links, err := s.IndexLinks(ctx, holomem.DefaultNamespace)
			if err != nil || (len(links) > 0) != tt.built {
				t.Fatalf("destination's upper-layer links: %d, %v", len(links), err)
			}
			if !tt.built {
				return
			}
			models, err := index.StoredGraphModels(ctx, s)
			if err != nil || len(models) != 1 {
				t.Fatalf("destination's graphs: %v, %v", models, err)
			}
			checks, err := index.VerifyGraphs(ctx, s)
			if err != nil || len(checks) != 1 || checks[0].Problem != "" || checks[0].Nodes != 400 {
				t.Fatalf("verify the destination's graph: %+v, %v", checks, err)
			}
		})
	}
}
