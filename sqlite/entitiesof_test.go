package sqlite_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// TestEntitiesOf_OrderAndNames: one row per fact (a JSON array) must give
// the same names in the same order as reading fact_entities row by row,
// names with quotes and non-ASCII letters included, and leave facts
// without entities out.
func TestEntitiesOf_OrderAndNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ents.db")
	s := mustOpen(t, path)
	ctx := t.Context()
	facts := []*holomem.Fact{
		{Content: "Alice met Bob in Paris, then Zoë joined Alice at Acme Corp"},
		{Content: `Dmitri said "Nginx" runs on Kubernetes for O'Neil`},
		{Content: "nothing named here at all"},
	}
	if _, err := s.CreateFacts(ctx, facts); err != nil {
		t.Fatal(err)
	}
	ids := []int64{facts[0].ID, facts[1].ID, facts[2].ID}
	got, err := s.EntitiesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[int64][]string{}
	for _, id := range ids {
		rows, err := db.QueryContext(ctx, `SELECT e.name FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id
			WHERE fe.fact_id = ? ORDER BY fe.pos, e.id`, id)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			want[id] = append(want[id], n)
		}
		rows.Close()
	}
	if len(want[facts[0].ID]) < 2 {
		t.Fatalf("fixture: fact 1 has entities %v, want several", want[facts[0].ID])
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("EntitiesOf = %v, want %v", got, want)
	}
	if _, ok := got[facts[2].ID]; ok && len(want[facts[2].ID]) == 0 {
		t.Errorf("fact without entities is in the map: %v", got[facts[2].ID])
	}
	for id, names := range got {
		if slices.Contains(names, "") {
			t.Errorf("fact %d: empty name in %v", id, names)
		}
	}
}
