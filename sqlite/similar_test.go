package sqlite_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

func TestSimilarFacts(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), "similar.db"))
	add := func(ns, content string) int64 {
		t.Helper()
		f := &holomem.Fact{Namespace: ns, Content: content}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		return f.ID
	}
	// 30 facts share "common" and "words": with a bound of 10 they are too
	// common to pick candidates by.
	var filler []int64
	for i := range 30 {
		filler = append(filler, add("", fmt.Sprintf("common words filler%d", i)))
	}
	dark := add("", "Alice prefers the dark theme in common words")
	light := add("", "Alice prefers the light theme in common words")
	other := add("other", "Alice prefers the dark theme in common words")
	old := add("", "Alice prefers the dark theme since March")
	newer := add("", "Alice prefers the dark theme since April")
	if err := s.Supersede(ctx, old, newer); err != nil {
		t.Fatal(err)
	}
	ids := func(ms []holomem.TextMatch) []int64 {
		var out []int64
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	tests := []struct {
		name  string
		terms []string
		limit int
		want  []int64
	}{
		// Both rare words ("dark", "theme") hold only for dark and newer;
		// light shares "theme" alone. The other namespace and the
		// superseded fact are never candidates; ties go to the newest.
		{"RareWordsRank", []string{"alice", "prefers", "dark", "theme", "common", "words"}, 10, []int64{newer, dark, light}},
		{"Limit", []string{"dark", "theme"}, 1, []int64{newer}},
		// Every word is common: the facts holding all of them, oldest first.
		{"AllCommon", []string{"common", "words"}, 3, filler[:3]},
		{"NoMatch", []string{"nothing", "matches"}, 10, nil},
		{"NoWords", nil, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.SimilarFacts(ctx, "", tt.terms, tt.limit, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("SimilarFacts(%q) = %v, want %v", tt.terms, ids(got), tt.want)
			}
			for i, m := range got {
				if m.Score <= 0 || m.Score > 1 || (i > 0 && m.Score > got[i-1].Score) {
					t.Errorf("scores %v: want in (0, 1], best first", got)
				}
			}
			if slices.Contains(ids(got), other) || slices.Contains(ids(got), old) {
				t.Errorf("SimilarFacts(%q) = %v: another namespace's or a superseded fact", tt.terms, ids(got))
			}
		})
	}
}
