package sqlite

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
)

var updateSchemaFixtures = flag.Bool("update-schema-fixtures", false, "write testdata/schema/vN.db for every schema version")

// writeSchemaFixture creates a database at schema version v (migrations
// 1..v, as that release left it) holding two facts.
func writeSchemaFixture(ctx context.Context, path string, v int) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	registerFunctions() // the full-text triggers call holomem_fts
	db, err := sql.Open("sqlite", "file:"+escapePath(path))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, m := range ms[:v] {
		q, err := m.Text()
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	for i, c := range []string{"Alice deploys nginx with Ansible", "Bob prefers vim"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO facts (id, namespace, content, content_hash, category, trust, created_at, updated_at)
			VALUES (?, 'default', ?, ?, 'general', 0.5, 1700000000000000000, 1700000000000000000)`, i+1, c, int64(i+1)); err != nil {
			return err
		}
	}
	if v >= 7 {
		// From migration 0007 the store writes full-text rows itself.
		if _, err := db.ExecContext(ctx, `INSERT INTO facts_fts (rowid, content, tags, scope)
			SELECT id, holomem_fts(content), holomem_fts(tags), 'l' || hex(namespace) FROM facts`); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d; PRAGMA application_id = %d", v, applicationID)); err != nil {
		return err
	}
	return nil
}

// TestSchemaFixtures opens a database from every released schema version
// (testdata/schema/vN.db, committed; -update-schema-fixtures rewrites them)
// and checks it migrates to the latest and keeps its facts.
func TestSchemaFixtures(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join("testdata", "schema")
	if *updateSchemaFixtures {
		os.MkdirAll(dir, 0o755)
		for v := 1; v <= LatestSchema; v++ {
			p := filepath.Join(dir, fmt.Sprintf("v%d.db", v))
			os.Remove(p)
			if err := writeSchemaFixture(ctx, p, v); err != nil {
				t.Fatalf("v%d: %v", v, err)
			}
		}
	}
	for v := 1; v <= LatestSchema; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("v%d.db", v)))
			if os.IsNotExist(err) {
				t.Skipf("no fixture for schema %d yet: go test -run SchemaFixtures -update-schema-fixtures ./sqlite/", v)
			}
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "m.db")
			os.WriteFile(p, raw, 0o600)
			s, err := Open(ctx, p)
			if err != nil {
				t.Fatalf("open a schema %d database: %v", v, err)
			}
			defer s.Close()
			if got, _ := s.SchemaVersion(ctx); got != LatestSchema {
				t.Errorf("schema %d after open, want %d", got, LatestSchema)
			}
			facts, _, err := s.FindFacts(ctx, holomem.FactFilter{Limit: 10})
			if err != nil || len(facts) != 2 {
				t.Fatalf("facts after migration: %d, %v", len(facts), err)
			}
			m, err := s.SearchText(ctx, holomem.DefaultNamespace, "nginx", 10)
			if err != nil || len(m) != 1 {
				t.Errorf("full-text search after migration: %v, %v", m, err)
			}
			if err := s.Check(ctx); err != nil {
				t.Errorf("check after migration: %v", err)
			}
		})
	}
}
