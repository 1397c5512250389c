package sqlite_test

import (
	"testing"

	"path/filepath"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

func TestTermStats(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "stats.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []string{"We deployed nginx", "nginx serves the docs", "Postgres runs backups"} {
		if _, err := s.CreateFact(ctx, &holomem.Fact{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	docs, df, err := s.TermStats(ctx, []string{"nginx", "deploy", "postgres", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if docs != 3 || df[0] != 2 || df[1] != 1 || df[2] != 1 || df[3] != 0 {
		t.Errorf("docs %d, df %v; want 3, [2 1 1 0]", docs, df)
	}
	// Any-term search ranks every fact with one of the words.
	hits, err := s.SearchText(ctx, "", "nginx backups", 10, holomem.WithAnyTerm())
	if err != nil || len(hits) != 3 {
		t.Fatalf("any-term: %v, %d hits", err, len(hits))
	}
}
