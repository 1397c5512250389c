package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/sqlite"
)

// TestMigrate_indexGraph: a database of schema 8 kept its HNSW graph's
// upper layers as hnsw_l1..16 edges and its description as meta
// "hnsw:<namespace>". Migration 9 moves both into the index's own tables:
// the index loads the same graph and answers the same, and no such edge
// or meta value is left. An edge a user named like a layer stays an edge.
func TestMigrate_indexGraph(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	snap := testutil.BuildGraph(t, s)
	if _, err := s.CreateEdge(ctx, &holomem.Edge{From: snap.Links[0].From, To: snap.Links[0].To, Kind: "hnsw_l2", Weight: 1, Origin: holomem.OriginUser}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Put the graph back the way schema 8 stored it.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO edges (src, dst, kind, weight, origin, created_at)
			SELECT src, dst, 'hnsw_l' || level, 0.5, 'hnsw', 1700000000000000000 FROM index_links`,
		`INSERT INTO meta (key, value) SELECT 'hnsw:' || namespace, description FROM index_graphs`,
		`DROP TABLE index_links`,
		`DROP TABLE index_graphs`,
		// and without what later migrations add
		`DROP INDEX facts_browse_updated`, `DROP INDEX facts_browse_created`, `DROP INDEX facts_browse_trust`,
		`DROP INDEX facts_browse_retrievals`, `DROP INDEX facts_browse_labels`,
		`PRAGMA user_version = 8`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var old int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM edges WHERE kind LIKE 'hnsw\\_l%' ESCAPE '\\' AND origin = 'hnsw'").Scan(&old); err != nil || old != len(snap.Links) {
		t.Fatalf("old-style layer edges: %d, %v; want %d", old, err, len(snap.Links))
	}
	db.Close()

	s = mustOpen(t, path)
	if v, _ := s.SchemaVersion(ctx); v != sqlite.LatestSchema {
		t.Fatalf("schema %d after open, want %d", v, sqlite.LatestSchema)
	}
	testutil.CheckMigratedGraph(t, s, snap)
	if err := s.Check(ctx); err != nil {
		t.Errorf("check after migration: %v", err)
	}
}
