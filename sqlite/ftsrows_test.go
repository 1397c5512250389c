package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// TestCreateFacts_FTSRowsAsReindex checks that the full-text rows the store
// writes itself (migration 0007) hold what the SQL path writes: the index
// after CreateFact and CreateFacts has the same terms, document and
// occurrence counts (scope tokens included) as after Reindex, which
// rebuilds it with holomem_fts in SQL as the old trigger did.
func TestCreateFacts_FTSRowsAsReindex(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	contents := []string{
		"Deploying deployed services with Ansible; see deploy/nginx.yml",
		"Россия России ёлка Ёж: развернули кластер",
		"café naïve v1.2 snake_case CamelCase #tag",
		"Alice prefers dark mode",
	}
	if _, err := s.CreateFact(ctx, &holomem.Fact{Content: contents[0], Tags: []string{"Ops", "good first issue"}}); err != nil {
		t.Fatal(err)
	}
	var batch []*holomem.Fact
	for i, c := range contents[1:] {
		batch = append(batch, &holomem.Fact{Content: c, Namespace: []string{"", "github.com/acme/app", "проект"}[i%3], Tags: []string{fmt.Sprint("t", i)}})
	}
	if _, err := s.CreateFacts(ctx, batch); err != nil {
		t.Fatal(err)
	}
	vocab := func() []string {
		rows, err := s.rdb.QueryContext(ctx, "SELECT term, doc, cnt FROM facts_vocab ORDER BY term")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var term string
			var doc, cnt int
			if err := rows.Scan(&term, &doc, &cnt); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d %d", term, doc, cnt))
		}
		return out
	}
	written := vocab()
	if err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if rebuilt := vocab(); !slices.Equal(written, rebuilt) {
		t.Errorf("index written by the store:\n%q\nrebuilt in SQL:\n%q", written, rebuilt)
	}
	if len(written) < 20 {
		t.Errorf("index has %d terms: %q", len(written), written)
	}
}
