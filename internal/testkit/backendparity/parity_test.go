package backendparity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/sqlite"
)

// backend is one store under test with a way to read its content hashes,
// which no API returns.
type backend struct {
	name   string
	store  holomem.Store
	hashes func(ctx context.Context) (map[int64]int64, error)
}

func openSQLite(t *testing.T) backend {
	t.Helper()
	path := filepath.Join(t.TempDir(), "parity.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return backend{name: "sqlite", store: s, hashes: func(ctx context.Context) (map[int64]int64, error) {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			return nil, err
		}
		defer db.Close()
		rows, err := db.QueryContext(ctx, "SELECT id, content_hash FROM facts")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[int64]int64{}
		for rows.Next() {
			var id, h int64
			if err := rows.Scan(&id, &h); err != nil {
				return nil, err
			}
			out[id] = h
		}
		return out, rows.Err()
	}}
}

func openPostgres(t *testing.T) backend {
	t.Helper()
	addr := pgtest.Addr(t)
	s, err := postgres.Open(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return backend{name: "postgres", store: s, hashes: func(ctx context.Context) (map[int64]int64, error) {
		conn, err := pgx.Connect(ctx, addr)
		if err != nil {
			return nil, err
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, "SELECT id, content_hash FROM facts")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[int64]int64{}
		for rows.Next() {
			var id, h int64
			if err := rows.Scan(&id, &h); err != nil {
				return nil, err
			}
			out[id] = h
		}
		return out, rows.Err()
	}}
}

// importPlan says how the corpus goes into a store: batches through
// CreateFacts, with one stretch added fact by fact through CreateFact, the
// way an import and a running agent mix.
type importPlan struct {
	batch            int
	singleFrom, upTo int // facts [singleFrom, upTo) one by one
}

// load imports fs (copied, since stores fill them in) into b by plan and
// returns the facts as the store returned them and the created flags.
func load(t *testing.T, b backend, fs []*holomem.Fact, plan importPlan) ([]*holomem.Fact, []bool) {
	t.Helper()
	ctx := t.Context()
	cp := make([]*holomem.Fact, len(fs))
	for i, f := range fs {
		c := *f
		c.Tags = slices.Clone(f.Tags)
		cp[i] = &c
	}
	created := make([]bool, len(cp))
	for i := 0; i < len(cp); {
		if i >= plan.singleFrom && i < plan.upTo {
			c, err := b.store.CreateFact(ctx, cp[i])
			if err != nil {
				t.Fatalf("%s: create fact %d: %v", b.name, i, err)
			}
			created[i] = c
			i++
			continue
		}
		end := min(i+plan.batch, len(cp))
		if i < plan.singleFrom {
			end = min(end, plan.singleFrom)
		}
		cs, err := b.store.CreateFacts(ctx, cp[i:end])
		if err != nil {
			t.Fatalf("%s: create facts %d..%d: %v", b.name, i, end, err)
		}
		copy(created[i:end], cs)
		i = end
	}
	return cp, created
}

// diffs collects differences by kind, keeping a few examples of each.
type diffs struct {
	count    map[string]int
	examples map[string][]string
}

func (d *diffs) add(kind, format string, args ...any) {
	if d.count == nil {
		d.count, d.examples = map[string]int{}, map[string][]string{}
	}
	d.count[kind]++
	if len(d.examples[kind]) < 15 {
		d.examples[kind] = append(d.examples[kind], fmt.Sprintf(format, args...))
	}
}

func (d *diffs) report(t *testing.T) {
	t.Helper()
	if len(d.count) == 0 {
		return
	}
	kinds := make([]string, 0, len(d.count))
	for k := range d.count {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n%s: %d differences", k, d.count[k])
		for _, e := range d.examples[k] {
			b.WriteString("\n    " + e)
		}
	}
	t.Errorf("the backends derive different data:%s", b.String())
}

// factView is what a fact looks like through the API, minus what the
// caller gives (the comparison of those is cheap and done too).
func factView(f *holomem.Fact) string {
	return fmt.Sprintf("ns=%q content=%q cat=%q tags=%q src=%q key=%q trust=%v counts=%d/%d/%d created=%s updated=%s superseded=%d",
		f.Namespace, f.Content, f.Category, f.Tags, f.Source, f.ExternalKey, f.Trust,
		f.RetrievalCount, f.HelpfulCount, f.UnhelpfulCount,
		f.CreatedAt.UTC().Format("2006-01-02T15:04:05.999999999"), f.UpdatedAt.UTC().Format("2006-01-02T15:04:05.999999999"), f.SupersededBy)
}

// TestBackendsDeriveTheSame imports one generated memory of English and
// Russian notes into a fresh SQLite and a fresh PostgreSQL store the same
// way and compares everything the stores derive: per fact its id, whether
// it was new, its fields and entities (names and order) and content hash;
// the entity tables (names, aliases, fact counts, linked facts); and
// FindFacts' answers to a few filters.
func TestBackendsDeriveTheSame(t *testing.T) {
	pgtest.BaseAddr(t) // skip early without PostgreSQL
	n := 3000
	if testing.Short() {
		n = 1200
	}
	fs := corpus(23, n)
	plan := importPlan{batch: 250, singleFrom: n / 2, upTo: n/2 + 200}
	a, b := openSQLite(t), openPostgres(t)
	fa, ca := load(t, a, fs, plan)
	fb, cb := load(t, b, fs, plan)
	compare(t, a, b, fa, fb, ca, cb)
	if t.Failed() {
		return
	}

	// Edits: new content re-derives a fact's entities and drops the
	// entities no fact names any more; so does deleting a fact.
	edit := func(bk backend) {
		ctx := t.Context()
		for i := 1; i < len(fa); i += 37 {
			content := fs[(i*7)%len(fs)].Content + " Edited by Priya, see nginx and flakiness."
			_, err := bk.store.UpdateFact(ctx, fa[i].ID, holomem.FactUpdate{Content: &content})
			if err != nil && !errors.Is(err, holomem.ErrConflict) {
				t.Fatalf("%s: update %d: %v", bk.name, fa[i].ID, err)
			}
		}
		for i := 5; i < len(fa); i += 53 {
			if err := bk.store.DeleteFact(ctx, fa[i].ID); err != nil && !errors.Is(err, holomem.ErrNotFound) {
				t.Fatalf("%s: delete %d: %v", bk.name, fa[i].ID, err)
			}
		}
	}
	edit(a)
	edit(b)
	compareState(t, a, b, "after edits")
	if t.Failed() {
		return
	}

	// Relinking every fact (what an upgrade of the extractor runs) must
	// derive the same on both.
	for _, bk := range []backend{a, b} {
		rl, ok := bk.store.(holomem.EntityRelinker)
		if !ok {
			t.Fatalf("%s: no RelinkEntities", bk.name)
		}
		for after := int64(0); ; {
			last, err := rl.RelinkEntities(t.Context(), after, 700)
			if err != nil {
				t.Fatalf("%s: relink: %v", bk.name, err)
			}
			if last == 0 {
				break
			}
			after = last
		}
	}
	compareState(t, a, b, "after relinking")
}

// compareState compares the stored facts (content and entities) and the
// entity tables of a and b.
func compareState(t *testing.T, a, b backend, when string) {
	t.Helper()
	ctx := t.Context()
	var d diffs
	x, _, err := a.store.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	y, _, err := b.store.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != len(y) {
		t.Fatalf("%s: %s %d facts, %s %d", when, a.name, len(x), b.name, len(y))
	}
	for i := range x {
		if x[i].ID != y[i].ID || x[i].Content != y[i].Content || !slices.Equal(x[i].Entities, y[i].Entities) {
			d.add("entities "+when, "id %d/%d %q:\n      %s %q\n      %s %q", x[i].ID, y[i].ID, x[i].Content, a.name, x[i].Entities, b.name, y[i].Entities)
		}
	}
	for _, ns := range []string{"default", "team"} {
		ea, err := a.store.FindEntities(ctx, ns, 0)
		if err != nil {
			t.Fatal(err)
		}
		eb, err := b.store.FindEntities(ctx, ns, 0)
		if err != nil {
			t.Fatal(err)
		}
		view := func(es []*holomem.Entity) []string {
			var out []string
			for _, e := range es {
				out = append(out, fmt.Sprintf("%s %d %q", e.Name, e.FactCount, e.Aliases))
			}
			slices.Sort(out)
			return out
		}
		va, vb := view(ea), view(eb)
		for _, s := range va {
			if !slices.Contains(vb, s) {
				d.add("entity table "+when, "%s: only in %s: %s", ns, a.name, s)
			}
		}
		for _, s := range vb {
			if !slices.Contains(va, s) {
				d.add("entity table "+when, "%s: only in %s: %s", ns, b.name, s)
			}
		}
	}
	d.report(t)
}

func compare(t *testing.T, a, b backend, fa, fb []*holomem.Fact, ca, cb []bool) {
	t.Helper()
	ctx := t.Context()
	var d diffs
	for i := range fa {
		if ca[i] != cb[i] {
			d.add("created", "input %d: %s %v, %s %v", i, a.name, ca[i], b.name, cb[i])
		}
		if fa[i].ID != fb[i].ID {
			d.add("id", "input %d: %s id %d, %s id %d", i, a.name, fa[i].ID, b.name, fb[i].ID)
		}
		if !slices.Equal(fa[i].Entities, fb[i].Entities) {
			d.add("entities returned by create", "input %d (id %d) %q:\n      %s %q\n      %s %q", i, fa[i].ID, fa[i].Content, a.name, fa[i].Entities, b.name, fb[i].Entities)
		}
	}

	// Every stored fact, read back.
	all := func(bk backend) map[int64]*holomem.Fact {
		got, _, err := bk.store.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true})
		if err != nil {
			t.Fatalf("%s: find facts: %v", bk.name, err)
		}
		m := make(map[int64]*holomem.Fact, len(got))
		for _, f := range got {
			m[f.ID] = f
		}
		return m
	}
	sa, sb := all(a), all(b)
	if len(sa) != len(sb) {
		d.add("fact count", "%s %d facts, %s %d", a.name, len(sa), b.name, len(sb))
	}
	ha, err := a.hashes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := b.hashes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 0, len(sa))
	for id := range sa {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		x, y := sa[id], sb[id]
		if y == nil {
			d.add("fact missing", "id %d only in %s", id, a.name)
			continue
		}
		if vx, vy := factView(x), factView(y); vx != vy {
			d.add("fact fields", "id %d:\n      %s %s\n      %s %s", id, a.name, vx, b.name, vy)
		}
		if !slices.Equal(x.Entities, y.Entities) {
			d.add("entities", "id %d %q:\n      %s %q\n      %s %q", id, x.Content, a.name, x.Entities, b.name, y.Entities)
		}
		if ha[id] != hb[id] {
			d.add("content hash", "id %d: %s %d, %s %d", id, a.name, ha[id], b.name, hb[id])
		}
	}
	for id := range sb {
		if sa[id] == nil {
			d.add("fact missing", "id %d only in %s", id, b.name)
		}
	}

	// The entity tables, by namespace.
	for _, ns := range []string{"default", "team"} {
		ents := func(bk backend) map[string]*holomem.Entity {
			es, err := bk.store.FindEntities(ctx, ns, 0)
			if err != nil {
				t.Fatalf("%s: find entities: %v", bk.name, err)
			}
			m := make(map[string]*holomem.Entity, len(es))
			for _, e := range es {
				m[e.Name] = e
			}
			return m
		}
		ea, eb := ents(a), ents(b)
		names := map[string]bool{}
		for k := range ea {
			names[k] = true
		}
		for k := range eb {
			names[k] = true
		}
		for _, name := range slices.Sorted(mapsKeys(names)) {
			x, y := ea[name], eb[name]
			switch {
			case y == nil:
				d.add("entity only in "+a.name, "%s: %q (%d facts, aliases %q)", ns, name, x.FactCount, x.Aliases)
				continue
			case x == nil:
				d.add("entity only in "+b.name, "%s: %q (%d facts, aliases %q)", ns, name, y.FactCount, y.Aliases)
				continue
			}
			if x.FactCount != y.FactCount {
				d.add("entity fact count", "%s: %q: %s %d, %s %d", ns, name, a.name, x.FactCount, b.name, y.FactCount)
			}
			if !slices.Equal(x.Aliases, y.Aliases) {
				d.add("entity aliases", "%s: %q: %s %q, %s %q", ns, name, a.name, x.Aliases, b.name, y.Aliases)
			}
			fx, err := a.store.FactIDsByEntity(ctx, ns, name)
			if err != nil {
				t.Fatal(err)
			}
			fy, err := b.store.FactIDsByEntity(ctx, ns, name)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(fx, fy) {
				d.add("entity facts", "%s: %q: %s %v, %s %v", ns, name, a.name, fx, b.name, fy)
			}
		}
	}

	// FindFacts under a few filters, with paging.
	str := func(s string) *string { return &s }
	for _, fl := range []holomem.FactFilter{
		{Namespace: str("default")},
		{Namespace: str("team"), Limit: 50, Offset: 20},
		{Tag: str("kafka")},
		{Category: str("incident"), Namespace: str("default")},
		{Source: str("parity"), Limit: 10},
		{AfterID: int64(len(fa) / 3), Limit: 100},
		{Lean: true, Namespace: str("default"), Limit: 30},
	} {
		x, nx, err := a.store.FindFacts(ctx, fl)
		if err != nil {
			t.Fatal(err)
		}
		y, ny, err := b.store.FindFacts(ctx, fl)
		if err != nil {
			t.Fatal(err)
		}
		if nx != ny || len(x) != len(y) {
			d.add("find facts", "%+v: %s %d of %d, %s %d of %d", fl, a.name, len(x), nx, b.name, len(y), ny)
			continue
		}
		for i := range x {
			if x[i].ID != y[i].ID || factView(x[i]) != factView(y[i]) || !slices.Equal(x[i].Entities, y[i].Entities) {
				d.add("find facts", "%+v: row %d: %s id %d %q, %s id %d %q", fl, i, a.name, x[i].ID, x[i].Entities, b.name, y[i].ID, y[i].Entities)
			}
		}
	}
	d.report(t)
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestBatchesDeriveAsOneByOne checks that a batch import derives what
// adding the same facts one at a time derives, on each backend: a term
// that recurs within one batch becomes an entity at the same fact, and
// links the same earlier facts in the same order, as it would have
// across separate adds.
func TestBatchesDeriveAsOneByOne(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 600
	}
	fs := corpus(28, n)
	batched := importPlan{batch: 300, singleFrom: n, upTo: n}
	single := importPlan{batch: 1, singleFrom: 0, upTo: n}
	t.Run("sqlite", func(t *testing.T) {
		a, b := openSQLite(t), openSQLite(t)
		a.name, b.name = "batched", "one-by-one"
		fa, ca := load(t, a, fs, batched)
		fb, cb := load(t, b, fs, single)
		compare(t, a, b, fa, fb, ca, cb)
	})
	t.Run("postgres", func(t *testing.T) {
		pgtest.BaseAddr(t)
		m := min(n, 400) // one-by-one adds are slow on PostgreSQL
		a, b := openPostgres(t), openPostgres(t)
		a.name, b.name = "batched", "one-by-one"
		fa, ca := load(t, a, fs[:m], importPlan{batch: 100, singleFrom: m, upTo: m})
		fb, cb := load(t, b, fs[:m], importPlan{batch: 1, singleFrom: 0, upTo: m})
		compare(t, a, b, fa, fb, ca, cb)
	})
}
