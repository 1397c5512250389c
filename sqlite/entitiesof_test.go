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

// TestEntitiesOf_CacheFollowsWrites: EntitiesOf caches its answers, and
// every write that changes a fact's links, by this store or by another
// process's store on the same file, must show in the next call.
func TestEntitiesOf_CacheFollowsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ents.db")
	s := mustOpen(t, path)
	other := mustOpen(t, path)
	ctx := t.Context()
	a := &holomem.Fact{Content: "Alice met Bob in Paris"}
	b := &holomem.Fact{Content: "Carol works at Acme Corp"}
	if _, err := s.CreateFacts(ctx, []*holomem.Fact{a, b}); err != nil {
		t.Fatal(err)
	}
	content := func(c string) holomem.FactUpdate { return holomem.FactUpdate{Content: &c} }
	steps := []struct {
		name  string
		write func() error
	}{
		{"unchanged (cached)", func() error { return nil }},
		{"update here", func() error { _, err := s.UpdateFact(ctx, a.ID, content("Dave met Erin in Oslo")); return err }},
		{"update by another store", func() error {
			_, err := other.UpdateFact(ctx, b.ID, content("Frank joined Globex with Grace"))
			return err
		}},
		{"new fact by another store", func() error {
			_, err := other.CreateFact(ctx, &holomem.Fact{Content: "Heidi and Ivan visited Oslo"})
			return err
		}},
		{"relink", func() error { _, err := s.RelinkEntities(ctx, 0, 100); return err }},
		{"delete by another store", func() error { return other.DeleteFact(ctx, a.ID) }},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.write(); err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second call is answered from the cache
				got, err := s.EntitiesOf(ctx, []int64{a.ID, b.ID})
				if err != nil {
					t.Fatal(err)
				}
				want, err := other.EntitiesOf(ctx, []int64{a.ID, b.ID})
				if err != nil {
					t.Fatal(err)
				}
				direct := directEntities(t, path, a.ID, b.ID)
				if fmt.Sprint(got) != fmt.Sprint(direct) || fmt.Sprint(want) != fmt.Sprint(direct) {
					t.Fatalf("EntitiesOf = %v (other store %v), links in the file %v", got, want, direct)
				}
			}
		})
	}
}

// directEntities reads the facts' entity names from the file, uncached.
func directEntities(t *testing.T, path string, ids ...int64) map[int64][]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[int64][]string{}
	for _, id := range ids {
		rows, err := db.QueryContext(t.Context(), `SELECT e.name FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id
			WHERE fe.fact_id = ? ORDER BY fe.pos, e.id`, id)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[id] = append(out[id], n)
		}
		rows.Close()
	}
	return out
}
