package postgres_test

import (
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/postgres"
)

// TestMigrate_indexGraph: a database of schema 5 kept its HNSW graph's
// upper layers as hnsw_l1..16 edges and its description as meta
// "hnsw:<namespace>". Migration 6 moves both into the index's own tables:
// the index loads the same graph and answers the same, and no such edge
// or meta value is left. An edge a user named like a layer stays an edge.
func TestMigrate_indexGraph(t *testing.T) {
	ctx := t.Context()
	addr := pgtest.Addr(t)
	s := mustOpen(t, addr)
	snap := testutil.BuildGraph(t, s)
	if _, err := s.CreateEdge(ctx, &holomem.Edge{From: snap.Links[0].From, To: snap.Links[0].To, Kind: "hnsw_l2", Weight: 1, Origin: holomem.OriginUser}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Put the graph back the way schema 5 stored it.
	execSQL(t, addr, `
		INSERT INTO edges (src, dst, kind, weight, origin, created_at)
			SELECT src, dst, 'hnsw_l' || level, 0.5, 'hnsw', 1700000000000000000 FROM index_links;
		INSERT INTO meta (key, value) SELECT 'hnsw:' || namespace, description FROM index_graphs;
		DROP TABLE index_links;
		DROP TABLE index_graphs;
		-- and without what later migrations add
		DROP INDEX facts_browse_updated, facts_browse_created, facts_browse_trust, facts_browse_retrievals, facts_browse_labels;
		UPDATE holomem_schema SET version = 5;`)

	s = mustOpen(t, addr)
	if v, _ := s.SchemaVersion(ctx); v != postgres.LatestSchema {
		t.Fatalf("schema %d after open, want %d", v, postgres.LatestSchema)
	}
	testutil.CheckMigratedGraph(t, s, snap)
}
