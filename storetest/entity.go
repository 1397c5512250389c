package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

func testEntitiesResolve(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("Grace Hopper wrote the first compiler"))
	b := create(t, s, fact("Hopper also popularised the word bug"))
	create(t, s, &holomem.Fact{Content: "Hopper in another namespace", Namespace: "other"})
	e, err := s.FindEntity(ctx, "", "hopper")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "Hopper" || e.FactCount < 1 || e.Namespace != holomem.DefaultNamespace {
		t.Errorf("FindEntity(hopper) = %+v", e)
	}
	ids, err := s.FactIDsByEntity(ctx, "", "HOPPER")
	if err != nil || len(ids) == 0 || !slices.IsSorted(ids) || !slices.Contains(ids, b.ID) {
		t.Errorf("FactIDsByEntity(HOPPER) = %v, %v; want sorted ids including %d", ids, err, b.ID)
	}
	for _, id := range ids {
		if id != a.ID && id != b.ID {
			t.Errorf("FactIDsByEntity returned %d from another namespace", id)
		}
	}
	_, err = s.FindEntity(ctx, "", "Nobody")
	wantErr(t, "unknown entity", err, holomem.ErrNotFound)
	_, err = s.FindEntity(ctx, "", "")
	wantErr(t, "empty name", err, holomem.ErrNotFound)
	if ids, err := s.FactIDsByEntity(ctx, "", "Nobody"); err != nil || len(ids) != 0 {
		t.Errorf("FactIDsByEntity(Nobody) = %v, %v; want none", ids, err)
	}
	m, err := s.EntitiesOf(ctx, []int64{a.ID, b.ID, 9999})
	if err != nil || !slices.Equal(m[a.ID], a.Entities) || !slices.Equal(m[b.ID], b.Entities) || len(m[9999]) != 0 {
		t.Errorf("EntitiesOf = %v, %v; want %q and %q", m, err, a.Entities, b.Entities)
	}
}

func testEntitiesAlias(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("PostgreSQL aka Postgres is our main database"))
	e, err := s.FindEntity(ctx, "", "postgres")
	if err != nil {
		t.Fatalf("FindEntity by alias: %v (fact entities %q)", err, f.Entities)
	}
	if e.Name != "PostgreSQL" || !slices.Contains(e.Aliases, "Postgres") {
		t.Errorf("FindEntity(postgres) = %+v, want PostgreSQL with alias Postgres", e)
	}
	ids, err := s.FactIDsByEntity(ctx, "", "POSTGRES")
	if err != nil || !slices.Equal(ids, []int64{f.ID}) {
		t.Errorf("FactIDsByEntity by alias = %v, %v", ids, err)
	}
	// A later fact naming the alias links to the same entity.
	g := create(t, s, fact("Postgres needs a vacuum"))
	ids, _ = s.FactIDsByEntity(ctx, "", "PostgreSQL")
	if !slices.Equal(ids, []int64{f.ID, g.ID}) {
		t.Errorf("FactIDsByEntity(PostgreSQL) = %v, want [%d %d]", ids, f.ID, g.ID)
	}
}

func testEntitiesWildcards(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("Set max_conn in Config_File for Mallory"))
	if len(f.Entities) == 0 {
		t.Fatalf("no entities in %q", f.Content)
	}
	for _, q := range []string{"%", "_", "%%", "M%", "Mallor_", "max%", "max_con_", "*", "?"} {
		if _, err := s.FindEntity(ctx, "", q); !errors.Is(err, holomem.ErrNotFound) {
			t.Errorf("FindEntity(%q) = %v, want ErrNotFound (wildcards are literal)", q, err)
		}
		if ids, _ := s.FactIDsByEntity(ctx, "", q); len(ids) != 0 {
			t.Errorf("FactIDsByEntity(%q) = %v, want none", q, ids)
		}
	}
	for _, name := range f.Entities {
		if _, err := s.FindEntity(ctx, "", name); err != nil {
			t.Errorf("FindEntity(%q): %v", name, err)
		}
	}
}

func testEntitiesList(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	create(t, s, fact("Zoe met Yann"))
	create(t, s, fact("Yann met Xavier"))
	create(t, s, fact("Yann and Xavier left"))
	es, err := s.FindEntities(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, e := range es {
		names = append(names, e.Name)
		if i > 0 && (es[i-1].FactCount < e.FactCount || es[i-1].FactCount == e.FactCount && es[i-1].Name > e.Name) {
			t.Errorf("FindEntities not ordered by count desc, name: %v", es)
		}
	}
	if len(es) < 3 || es[0].Name != "Yann" || es[0].FactCount != 3 {
		t.Errorf("FindEntities = %q, want Yann (3 facts) first", names)
	}
	if es, _ := s.FindEntities(ctx, "", 1); len(es) != 1 {
		t.Errorf("limit 1 gave %d entities", len(es))
	}
	if es, _ := s.FindEntities(ctx, "other", 0); len(es) != 0 {
		t.Errorf("other namespace has entities %v", es)
	}
}
