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

// testEntitiesRecurringTerms: a rare lower-case word becomes an entity
// once two facts of the namespace contain it, and then names the earlier
// fact too; a word seen once, or in another namespace, does not.
func testEntitiesRecurringTerms(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	probe := func(name string) []int64 {
		t.Helper()
		ids, err := s.FactIDsByEntity(ctx, "", name)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	a := create(t, s, fact("We deployed nginx with Ansible on all servers"))
	create(t, s, &holomem.Fact{Content: "nginx in another namespace", Namespace: "other"})
	if ids := probe("nginx"); len(ids) != 0 {
		t.Errorf("nginx after one fact: %v; want no entity yet", ids)
	}
	b := create(t, s, fact("nginx returns 502 when the upstream pool is exhausted"))
	if ids := probe("nginx"); !slices.Equal(ids, []int64{a.ID, b.ID}) {
		t.Errorf("FactIDsByEntity(nginx) = %v; want %v", ids, []int64{a.ID, b.ID})
	}
	if !slices.Contains(b.Entities, "nginx") {
		t.Errorf("second fact's entities %q; want nginx", b.Entities)
	}
	c := create(t, s, fact("after editing the config, restart NGINX"))
	if ids := probe("nginx"); !slices.Contains(ids, c.ID) {
		t.Errorf("a later fact does not link the promoted term: %v", ids)
	}
	// Strong terms at once; the same word as a tag of the fact.
	d := create(t, s, &holomem.Fact{Content: "pnpm is faster than the default", Tags: []string{"pnpm"}})
	if ids := probe("pnpm"); !slices.Equal(ids, []int64{d.ID}) {
		t.Errorf("FactIDsByEntity(pnpm) with the tag = %v; want [%d]", ids, d.ID)
	}
	e := create(t, s, fact("the k8s cluster runs kubectl 1.30; use --dry-run first"))
	for _, name := range []string{"k8s", "--dry-run"} {
		if ids := probe(name); !slices.Equal(ids, []int64{e.ID}) {
			t.Errorf("FactIDsByEntity(%s) = %v; want [%d]", name, ids, e.ID)
		}
	}
	if ids := probe("kubectl"); len(ids) != 0 {
		t.Errorf("kubectl once: %v; want no entity yet", ids)
	}
	// A batch links a term that recurs within the batch.
	batch := []*holomem.Fact{fact("pgbackrest runs nightly"), fact("the pgbackrest stanza must match")}
	if _, err := s.CreateFacts(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if ids := probe("pgbackrest"); !slices.Equal(ids, []int64{batch[0].ID, batch[1].ID}) {
		t.Errorf("FactIDsByEntity(pgbackrest) after a batch = %v; want %v", ids, []int64{batch[0].ID, batch[1].ID})
	}
	if !slices.Contains(batch[1].Entities, "pgbackrest") {
		t.Errorf("batch fact entities %q; want pgbackrest", batch[1].Entities)
	}
	// Openers and common words never become entities.
	f := create(t, s, fact("Kudos to the team. Previously the servers crashed."))
	if len(f.Entities) != 0 {
		t.Errorf("entities of %q = %q; want none", f.Content, f.Entities)
	}
}

// testEntitiesRussianCases: inflected forms of a Russian name are one
// entity, whichever form came first.
func testEntitiesRussianCases(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("Пароль от стенда есть у Алексея"))
	b := create(t, s, fact("Алексей отвечает за базу данных"))
	c := create(t, s, fact("С Алексеем договорились о релизе"))
	for _, name := range []string{"Алексей", "алексея", "Алексеем"} {
		ids, err := s.FactIDsByEntity(ctx, "", name)
		if err != nil || !slices.Equal(ids, []int64{a.ID, b.ID, c.ID}) {
			t.Errorf("FactIDsByEntity(%s) = %v, %v; want %v", name, ids, err, []int64{a.ID, b.ID, c.ID})
		}
	}
}

// testEntitiesRelink: deriving the entities of an up-to-date store again
// (holomem backfill) changes nothing.
func testEntitiesRelink(t *testing.T, s holomem.Store) {
	rl, ok := holomem.As[holomem.EntityRelinker](s)
	if !ok {
		t.Skip("store has no RelinkEntities")
	}
	ctx := t.Context()
	var ids []int64
	for _, c := range []string{"We deployed nginx with Ansible", "nginx returns 502", "у Алексея есть ключ",
		"Алексей aka Лёша чинит k8s", "Kudos to Grace Hopper", "Hopper wrote it"} {
		ids = append(ids, create(t, s, fact(c)).ID)
	}
	before, err := s.EntitiesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	var after int64
	for {
		last, err := rl.RelinkEntities(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if last == 0 {
			break
		}
		after = last
	}
	got, err := s.EntitiesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !slices.Equal(got[id], before[id]) {
			t.Errorf("fact %d entities after relinking %q; before %q", id, got[id], before[id])
		}
	}
	if _, err := rl.RelinkEntities(ctx, 0, 0); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("RelinkEntities(limit 0) = %v; want ErrInvalid", err)
	}
}

// testTermStats: the statistics recall's BM25 reads count facts and, per
// term (a token or a stem), the facts holding it, in every namespace.
func testTermStats(t *testing.T, s holomem.Store) {
	ts, ok := holomem.As[holomem.TermStatser](s)
	if !ok {
		t.Skip("store has no TermStats")
	}
	ctx := t.Context()
	create(t, s, fact("We deployed nginx"))
	create(t, s, &holomem.Fact{Content: "nginx serves the docs", Namespace: "other"})
	create(t, s, fact("Postgres runs backups"))
	docs, df, err := ts.TermStats(ctx, []string{"nginx", "deploy", "postgr", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if docs != 3 || !slices.Equal(df, []int64{2, 1, 1, 0}) {
		t.Errorf("TermStats = %d, %v; want 3, [2 1 1 0]", docs, df)
	}
	if docs, df, err := ts.TermStats(ctx, nil); err != nil || docs != 3 || len(df) != 0 {
		t.Errorf("TermStats(nil) = %d, %v, %v", docs, df, err)
	}
}

func testFactIDsWithWords(t *testing.T, s holomem.Store) {
	wf, ok := holomem.As[holomem.WordFinder](s)
	if !ok {
		t.Skip("store has no FactIDsWithWords")
	}
	ctx := t.Context()
	a := create(t, s, fact("Wobbly checked the nginx logs"))
	b := create(t, s, fact("The team met Wobbly in Москве"))
	c := create(t, s, &holomem.Fact{Content: "nginx serves the docs", Tags: []string{"wobbly"}})
	create(t, s, &holomem.Fact{Content: "Wobbly writes in another namespace", Namespace: "other"})
	old := create(t, s, fact("Wobbly wrote the old runbook"))
	if err := s.Supersede(ctx, old.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		words, prefixes []string
		before          int64
		want            []int64
	}{
		{[]string{"wobbly"}, nil, 0, []int64{a.ID, b.ID, c.ID}}, // content or tags; not superseded, not elsewhere
		{[]string{"wobbly", "nginx"}, nil, 0, []int64{a.ID, c.ID}},
		{[]string{"wobbly"}, nil, c.ID, []int64{a.ID, b.ID}},
		{nil, []string{"москв"}, 0, []int64{b.ID}}, // a Cyrillic name stem
		{[]string{"wobbly"}, []string{"москв"}, b.ID, nil},
		{[]string{"absent"}, nil, 0, nil},
		{nil, nil, 0, nil},
		{[]string{`"quoted" AND x`}, nil, 0, nil}, // no query syntax gets through
	} {
		got, err := wf.FactIDsWithWords(ctx, "", tc.words, tc.prefixes, tc.before)
		if err != nil {
			t.Fatalf("FactIDsWithWords(%q, %q, %d): %v", tc.words, tc.prefixes, tc.before, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("FactIDsWithWords(%q, %q, %d) = %v, want %v", tc.words, tc.prefixes, tc.before, got, tc.want)
		}
	}
}
