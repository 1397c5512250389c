package lexindex

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// TestSimilar_SQLite builds the same facts in a SQLite store and in an
// index and checks that Similar returns what the store's SimilarFacts
// does (ids, order and scores) for generated hygiene queries.
func TestSimilar_SQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a few hundred facts to SQLite")
	}
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "similar.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	r := rand.New(rand.NewSource(7))
	z := newZipf(r)
	var fs []*holomem.Fact
	for i := range 400 {
		f := &holomem.Fact{
			Namespace: []string{"a", "b"}[r.Intn(4)/3],
			Content:   fmt.Sprintf("%s %d", genText(r, z, 4+r.Intn(30)), i%17),
		}
		if r.Intn(8) == 0 {
			f.Tags = strings.Fields(genText(r, z, 2))
		}
		fs = append(fs, f)
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for _, f := range fs {
		ids[f.ID] = true
	}
	all := slices.Sorted(func(yield func(int64) bool) {
		for id := range ids {
			if !yield(id) {
				return
			}
		}
	})
	// Supersede and delete some, so both are exercised.
	nsOf := map[int64]string{}
	for _, f := range fs {
		nsOf[f.ID] = f.Namespace
	}
	for i := 0; i+2 < len(all); i += 13 {
		newer := all[i+1]
		if nsOf[newer] != nsOf[all[i]] {
			newer = all[i+2]
		}
		if nsOf[newer] != nsOf[all[i]] {
			continue
		}
		if err := s.Supersede(ctx, all[i], newer); err != nil {
			t.Fatal(err)
		}
	}
	for i := 5; i < len(all); i += 29 {
		if err := s.DeleteFact(ctx, all[i]); err != nil {
			t.Fatal(err)
		}
		delete(ids, all[i])
	}
	x := New()
	for id := range ids {
		f, err := s.FindFactByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		x.Put(Doc{ID: f.ID, Namespace: f.Namespace, Superseded: f.SupersededBy != 0, Terms: TermsOf(f.Content, f.Tags)})
	}

	queries := 0
	for i := range 300 {
		var terms []string
		if i%2 == 0 {
			terms = strings.Fields(genText(r, z, 2+r.Intn(10)))
		} else { // a near-duplicate of a stored fact
			f, _ := s.FindFactByID(ctx, all[r.Intn(len(all))])
			if f == nil {
				continue
			}
			terms = strings.Fields(f.Content)
			terms = terms[:max(1, len(terms)-r.Intn(3))]
		}
		ns := []string{"a", "b"}[i%2]
		limit := []int{1, 5, 20}[i%3]
		bound := []int{5, 20, 200}[i/3%3]
		want, err := s.SimilarFacts(ctx, ns, terms, limit, bound)
		if err != nil {
			t.Fatal(err)
		}
		got := x.Similar(ns, terms, limit, bound)
		if len(got) != len(want) {
			t.Fatalf("Similar(%q, %q, %d, %d) = %v, store %v", ns, terms, limit, bound, got, want)
		}
		for j := range got {
			if got[j].ID != want[j].ID || got[j].Score != want[j].Score {
				t.Fatalf("Similar(%q, %q, %d, %d) = %v, store %v", ns, terms, limit, bound, got, want)
			}
		}
		if len(want) > 0 {
			queries++
		}
	}
	if queries < 100 {
		t.Errorf("only %d queries found anything: the test compares too little", queries)
	}
}

// TestSimilar_SQLiteDifference pins down the one documented way Similar
// differs from the store on the same facts: a fact whose word equals a
// query word's stem but stems differently itself ("releas" stems to
// relea; "release" stems to releas) matches in FTS5, which indexes surface
// words too, and not in the index, which holds stems only.
func TestSimilar_SQLiteDifference(t *testing.T) {
	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "diff.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	x := New()
	for _, c := range []string{"the releas notes", "a release of notes"} {
		f := &holomem.Fact{Namespace: "a", Content: c}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		x.Put(Doc{ID: f.ID, Namespace: "a", Terms: TermsOf(f.Content, nil)})
	}
	want, err := s.SimilarFacts(ctx, "a", []string{"release"}, 10, 200)
	if err != nil {
		t.Fatal(err)
	}
	got := x.Similar("a", []string{"release"}, 10, 200)
	if len(want) != 2 || len(got) != 1 || got[0].ID != 2 {
		t.Errorf("store %v, index %v: want the store to match both facts and the index only the second", want, got)
	}
}
