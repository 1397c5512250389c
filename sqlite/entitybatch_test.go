package sqlite_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// entityCorpus returns facts whose entities depend on what the namespace
// already holds: made-up words that recur (recurring candidates promoted on
// their second fact, older facts linked then), duplicates and two
// namespaces; when mixed, also such words as tags, path components and
// identifier segments, sentence openers that name an entity only once it
// exists, aliases, URLs and Russian forms.
func entityCorpus(mixed bool) []holomem.Fact {
	r := rand.New(rand.NewPCG(9, 10))
	vocab := make([]string, 120)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteByte("bdfgklmnprstvz"[r.IntN(14)])
			b.WriteByte("aeiou"[r.IntN(5)])
		}
		b.WriteByte("kmnrstxz"[r.IntN(8)])
		vocab[i] = b.String()
	}
	z := rand.NewZipf(r, 1.2, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[z.Uint64()] }
	title := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	prose := []string{
		"Erin owns the Zephyr project and deploys it with kubectl",
		"Zephyr ships weekly. Kudos to Erin for that",
		"Robert aka Bob moved the nginx config to /etc/nginx/nginx.conf",
		"Bob says nginx returns 502 under load; see owner/repo#12",
		"у Алексея есть пароль от стенда в Москве",
		"Алексей отвечает за базу данных, Москва ждёт",
		"Mark met Alice at the docker-compose workshop with --dry-run",
		"Previously we used \"Blue Lagoon\" as the codename",
		"See https://github.com/acme/zephyr/issues/7 and GH-12 on WWW.acme.dev",
	}
	var out []holomem.Fact
	for i := range 160 {
		ns := "default"
		if i%5 == 4 {
			ns = "other"
		}
		var f holomem.Fact
		kind := i % 8
		if !mixed {
			kind = 0
		}
		switch kind {
		case 0, 1, 2, 3:
			ws := make([]string, 4+r.IntN(10))
			for j := range ws {
				ws[j] = word()
			}
			if mixed && r.IntN(3) == 0 {
				ws[0] = title(ws[0]) // opens a sentence
			}
			f.Content = strings.Join(ws, " ")
		case 4:
			f.Content = fmt.Sprintf("Fix src/%s/%s.go and call %s_%s() before %s", word(), word(), word(), word(), word())
		case 5:
			f.Content = fmt.Sprintf("%s notes about %s. %s again", title(word()), word(), title(word()))
			f.Tags = []string{word(), "ops"}
		case 6:
			f.Content = prose[i/8%len(prose)]
		case 7:
			f.Content = fmt.Sprintf("#%s and %s aka %s with %s", word(), title(word()), title(word()), word())
		}
		if i%17 == 16 && len(out) > 0 {
			f = out[r.IntN(len(out))] // a duplicate: no new fact
			f.ID, f.Entities = 0, nil
		}
		f.Namespace = ns
		out = append(out, f)
	}
	return out
}

// entitySnapshot is every fact's entity names, by content, and every
// namespace's entities with aliases and fact counts.
func entitySnapshot(t *testing.T, s *sqlite.Store, facts []holomem.Fact) []string {
	t.Helper()
	ctx := t.Context()
	var ids []int64
	for _, f := range facts {
		ids = append(ids, f.ID)
	}
	of, err := s.EntitiesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, f := range facts {
		out = append(out, fmt.Sprintf("fact %d %q %v: %q", i, f.Namespace, f.Tags, f.Content))
		out = append(out, fmt.Sprintf("  linked at write %q", f.Entities))
		out = append(out, fmt.Sprintf("  now %q", of[f.ID]))
	}
	for _, ns := range []string{"default", "other"} {
		es, err := s.FindEntities(ctx, ns, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			out = append(out, fmt.Sprintf("entity %s %q aliases %q facts %d", ns, e.Name, e.Aliases, e.FactCount))
		}
	}
	return out
}

var updateEntityGolden = flag.Bool("update-entity-golden", false, "rewrite testdata/entitybatch.golden")

// createInBatches adds facts to a new store one at a time (batch 1,
// CreateFact) or in batches (CreateFacts) and returns entitySnapshot.
func createInBatches(t *testing.T, corpus []holomem.Fact, batch int) []string {
	t.Helper()
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), fmt.Sprintf("batch%d.db", batch)))
	facts := slices.Clone(corpus)
	for from := 0; from < len(facts); from += batch {
		chunk := facts[from:min(from+batch, len(facts))]
		if batch == 1 {
			if _, err := s.CreateFact(ctx, &chunk[0]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		ps := make([]*holomem.Fact, len(chunk))
		for i := range chunk {
			ps[i] = &chunk[i]
		}
		if _, err := s.CreateFacts(ctx, ps); err != nil {
			t.Fatal(err)
		}
	}
	return entitySnapshot(t, s, facts)
}

// countEntities counts the entity lines of a snapshot.
func countEntities(snap []string) int {
	n := 0
	for _, l := range snap {
		if strings.HasPrefix(l, "entity ") {
			n++
		}
	}
	return n
}

// TestCreateFacts_EntitiesAsOneByOne: text of recurring lower-case words
// (the bulk import of jargon or non-English notes that linkCache speeds
// up) gets the same entities added one fact at a time (CreateFact) and in
// batches (CreateFacts) of several sizes, landing in an empty store or
// after others (a batch's words then partly committed, partly its own).
func TestCreateFacts_EntitiesAsOneByOne(t *testing.T) {
	corpus := entityCorpus(false)
	want := createInBatches(t, corpus, 1)
	if n := countEntities(want); n < 60 {
		t.Fatalf("only %d entities: the corpus no longer exercises promotion", n)
	}
	for _, n := range []int{2, 7, 50, len(corpus)} {
		if got := createInBatches(t, corpus, n); !slices.Equal(got, want) {
			t.Errorf("batches of %d vs one by one: %s", n, firstDiff(got, want))
		}
	}
}

// TestCreateFacts_Entities pins every fact's entities after adding the
// mixed entityCorpus one fact at a time and in batches of several sizes to
// testdata/entitybatch.golden. The golden file was written by the store as
// it was before linkCache, so it shows that caching and batching the
// lookups changed no fact's entities.
//
// Batches derive what one-by-one adds derive: a recurring word becomes an
// entity when text.MinTermFacts facts contain it, counted the same way
// (any fact holding the word, as a #tag or a path component too) whether
// the earlier facts are committed or the batch's own.
func TestCreateFacts_Entities(t *testing.T) {
	corpus := entityCorpus(true)
	var all, one []string
	for _, n := range []int{1, 7, 50, len(corpus)} {
		snap := createInBatches(t, corpus, n)
		if n == 1 && countEntities(snap) < 100 {
			t.Fatalf("only %d entities: the corpus no longer exercises promotion", countEntities(snap))
		}
		if n == 1 {
			one = snap
		} else if !slices.Equal(snap, one) {
			t.Errorf("batches of %d vs one by one: %s", n, firstDiff(snap, one))
		}
		all = append(all, fmt.Sprintf("== batches of %d", n))
		all = append(all, snap...)
	}
	path := filepath.Join("testdata", "entitybatch.golden")
	text := strings.Join(all, "\n") + "\n"
	if *updateEntityGolden {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("entities differ from %s (-update-entity-golden rewrites it): %s", path, firstDiff(all, strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")))
	}
}

// firstDiff describes the first line where got and want differ, or "".
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d lines, want %d", len(got), len(want))
	}
	return ""
}

// TestCreateFact_TermCountsSupersededNotOtherNamespaces: a recurring word's
// earlier fact counts (and is linked when the word becomes an entity)
// while it is superseded, and a fact in another namespace does not count.
func TestCreateFact_TermCountsSupersededNotOtherNamespaces(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), "t.db"))
	add := func(ns, content string) *holomem.Fact {
		t.Helper()
		f := &holomem.Fact{Namespace: ns, Content: content}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	old := add("", "the zorblat daemon restarts at noon")
	newer := add("", "the daemon restarts at midnight now")
	if err := s.Supersede(ctx, old.ID, newer.ID); err != nil {
		t.Fatal(err)
	}
	add("elsewhere", "quaffle works with zorblat and vintrex")
	if got, _ := s.FactIDsByEntity(ctx, "", "zorblat"); len(got) != 0 {
		t.Fatalf("zorblat after one fact of the namespace = %v", got)
	}
	third := add("", "zorblat logs go to syslog")
	got, err := s.FactIDsByEntity(ctx, "", "zorblat")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{old.ID, third.ID}; !slices.Equal(got, want) {
		t.Errorf("zorblat facts = %v, want %v (the superseded fact counts)", got, want)
	}
	if got, _ := s.FactIDsByEntity(ctx, "elsewhere", "zorblat"); len(got) != 0 {
		t.Errorf("zorblat in the other namespace = %v, want none", got)
	}
	// vintrex: once in "elsewhere", then in the default namespace.
	add("", "vintrex is new here")
	if got, _ := s.FactIDsByEntity(ctx, "", "vintrex"); len(got) != 0 {
		t.Errorf("vintrex = %v: a fact of another namespace counted", got)
	}
}
