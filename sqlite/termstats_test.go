package sqlite_test

import (
	"fmt"
	"slices"
	"strings"
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
	// Past the prepared statements' size, and with a term twice.
	many := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "nginx", "absent", "nginx"}
	docs, df, err = s.TermStats(ctx, many)
	if err != nil {
		t.Fatal(err)
	}
	if docs != 3 || len(df) != len(many) || df[8] != 2 || df[9] != 0 || df[10] != 2 {
		t.Errorf("%d terms: docs %d, df %v; want 3, nginx 2, absent 0", len(many), docs, df)
	}
	// Any-term search ranks every fact with one of the words.
	hits, err := s.SearchText(ctx, "", "nginx backups", 10, holomem.WithAnyTerm())
	if err != nil || len(hits) != 3 {
		t.Fatalf("any-term: %v, %d hits", err, len(hits))
	}
}

// TestTermStats_DocsFollowWrites: N comes from FTS5's averages record, not
// count(*); it must still be the number of facts after inserts past one
// varint byte, deletes and supersedes.
func TestTermStats_DocsFollowWrites(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "n.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var fs []*holomem.Fact
	for i := range 300 {
		fs = append(fs, &holomem.Fact{Content: fmt.Sprintf("fact number %d about things", i)})
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want int64) {
		t.Helper()
		docs, _, err := s.TermStats(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if docs != want {
			t.Errorf("%s: docs %d, want %d", step, docs, want)
		}
	}
	check("after 300 inserts", 300)
	for _, f := range fs[:20] {
		if err := s.DeleteFact(ctx, f.ID); err != nil {
			t.Fatal(err)
		}
	}
	check("after 20 deletes", 280)
	if err := s.Supersede(ctx, fs[20].ID, fs[21].ID); err != nil {
		t.Fatal(err)
	}
	check("after a supersede", 280)
}

// TestSearchText_AnyTermBounded: past the ranking budget the any-term
// search still puts facts with the rare word first (with the common word
// before without it) and fills the limit from the newest facts with only
// the common word; a query of common words alone fills it too.
func TestSearchText_AnyTermBounded(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bounded.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var fs []*holomem.Fact
	for i := range 2000 {
		fs = append(fs, &holomem.Fact{Content: fmt.Sprintf("common filler line %d", i)})
	}
	both := &holomem.Fact{Content: "common zebracorn sighting"}
	rareOnly := &holomem.Fact{Content: "a zebracorn sighting far away from any town"}
	fs = append(fs, both, rareOnly)
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchText(ctx, "", "common zebracorn", 10, holomem.WithAnyTerm())
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 || hits[0].ID != both.ID || hits[1].ID != rareOnly.ID {
		t.Fatalf("hits %v; want 10, #%d then #%d first", hits, both.ID, rareOnly.ID)
	}
	for _, h := range hits[2:] {
		if h.ID < fs[1500].ID {
			t.Errorf("common-word fill #%d is not among the newest facts with the word", h.ID)
		}
	}
	hits, err = s.SearchText(ctx, "", "common filler", 10, holomem.WithAnyTerm())
	if err != nil || len(hits) != 10 {
		t.Fatalf("common words only: %v, %d hits", err, len(hits))
	}
}

// TestTermStats_CacheFollowsWrites: document counts are cached while the
// index is unchanged; after every kind of write, including one that keeps
// every token count (a word swapped for another) and writes by another
// Store on the same file, they must equal a fresh store's.
func TestTermStats_CacheFollowsWrites(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "cache.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var fs []*holomem.Fact
	for i := range 30 {
		fs = append(fs, &holomem.Fact{Content: fmt.Sprintf("alpha beta gamma note %d", i)})
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	terms := []string{"alpha", "gamma", "zebra", "note"}
	check := func(step string) {
		t.Helper()
		docs, df, err := s.TermStats(ctx, terms)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		wantDocs, want, err := fresh.TermStats(ctx, terms)
		if err != nil {
			t.Fatal(err)
		}
		if docs != wantDocs || fmt.Sprint(df) != fmt.Sprint(want) {
			t.Errorf("%s: cached %d %v, fresh %d %v", step, docs, df, wantDocs, want)
		}
	}
	check("start")
	check("unchanged")
	zebra := "alpha beta zebra note 0"
	if _, err := s.UpdateFact(ctx, fs[0].ID, holomem.FactUpdate{Content: &zebra}); err != nil {
		t.Fatal(err)
	}
	check("a word swapped, token counts equal")
	if _, err := other.CreateFact(ctx, &holomem.Fact{Content: "zebra crossing"}); err != nil {
		t.Fatal(err)
	}
	check("insert by another store")
	if err := other.DeleteFact(ctx, fs[1].ID); err != nil {
		t.Fatal(err)
	}
	check("delete by another store")
	if err := s.Supersede(ctx, fs[2].ID, fs[3].ID); err != nil {
		t.Fatal(err)
	}
	check("supersede")
	swap := "alpha beta gamma note 1x"
	if _, err := other.UpdateFact(ctx, fs[4].ID, holomem.FactUpdate{Content: &swap}); err != nil {
		t.Fatal(err)
	}
	check("update by another store")
}

// TestTermStats_EmptyStore: an index without rows has no averages record;
// counting still works, twice (the second from the cache).
func TestTermStats_EmptyStore(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "empty.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		docs, df, err := s.TermStats(ctx, []string{"anything"})
		if err != nil || docs != 0 || len(df) != 1 || df[0] != 0 {
			t.Fatalf("empty store: %d %v %v", docs, df, err)
		}
	}
}

// TestSearchText_AnyTermCommonWordsTogether: when every word is common,
// the facts with all of them come before those with one, newest first.
func TestSearchText_AnyTermCommonWordsTogether(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "together.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var fs []*holomem.Fact
	for i := range 3400 {
		c := fmt.Sprintf("alpha note %d", i)
		if i%2 == 1 {
			c = fmt.Sprintf("omega note %d", i)
		}
		if i%500 == 7 {
			c = fmt.Sprintf("alpha omega note %d", i)
		}
		fs = append(fs, &holomem.Fact{Content: c})
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchText(ctx, "", "alpha omega", 10, holomem.WithAnyTerm())
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 {
		t.Fatalf("%d hits, want 10", len(hits))
	}
	var both []int64
	for _, f := range fs {
		if strings.HasPrefix(f.Content, "alpha omega") {
			both = append(both, f.ID)
		}
	}
	for i, h := range hits[:len(both)] {
		if !slices.Contains(both, h.ID) {
			t.Errorf("hit %d is #%d, not a fact with both words %v", i, h.ID, both)
		}
	}
}
