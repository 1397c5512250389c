package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// TestRelinkEntities_oldStore: a store whose entities were derived by an
// older version (no lower-case terms, Russian forms keyed apart) gets what
// a new store has after RelinkEntities, page by page.
func TestRelinkEntities_oldStore(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	s := mustOpen(t, path)
	var ids []int64
	for _, c := range []string{
		"у Алексея есть пароль от стенда",
		"We deployed nginx with Ansible",
		"Алексей отвечает за базу данных",
		"nginx returns 502 under load",
	} {
		f := &holomem.Fact{Content: c}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	// What an older version left: no term entities, and the two forms of
	// the name as two entities keyed by their normalised spelling.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"DELETE FROM fact_entities",
		"DELETE FROM entities",
		"INSERT INTO entities (id, namespace, name, key) VALUES (100, 'default', 'Алексея', 'алексея'), (101, 'default', 'Алексей', 'алексей'), (102, 'default', 'Ansible', 'ansible')",
		"INSERT INTO fact_entities (fact_id, entity_id, pos) VALUES (1, 100, 0), (3, 101, 0), (2, 102, 0)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	if got, _ := s.FactIDsByEntity(ctx, "", "nginx"); len(got) != 0 {
		t.Fatalf("before relinking, nginx = %v", got)
	}
	var after int64
	pages := 0
	for {
		last, err := s.RelinkEntities(ctx, after, 1)
		if err != nil {
			t.Fatal(err)
		}
		if last == 0 {
			break
		}
		after = last
		pages++
	}
	if pages != len(ids) {
		t.Errorf("relinked %d pages of one fact; want %d", pages, len(ids))
	}
	for name, want := range map[string][]int64{
		"Алексей": {ids[0], ids[2]}, "алексея": {ids[0], ids[2]},
		"nginx": {ids[1], ids[3]}, "Ansible": {ids[1]},
	} {
		if got, err := s.FactIDsByEntity(ctx, "", name); err != nil || !slices.Equal(got, want) {
			t.Errorf("FactIDsByEntity(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	es, err := s.FindEntities(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		for _, e := range es {
			t.Logf("entity %q facts %d", e.Name, e.FactCount)
		}
		t.Errorf("entities after relinking: %d; want 3 (one Алексей, nginx, Ansible)", len(es))
	}
	if _, err := s.RelinkEntities(ctx, 0, 0); err == nil {
		t.Error("RelinkEntities with limit 0: no error")
	}
}
