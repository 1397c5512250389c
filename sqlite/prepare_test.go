package sqlite_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// TestPrepareFacts_knownExtraction: a caller's text.Extract(content, nil)
// stands in for the store's own extraction only where it is the same
// thing: a fact without tags whose content it was computed from. The
// stored entities must be those of a store that extracted everything
// itself; a fact with tags, or an extraction of other text, is ignored
// (here each known extraction is made wrong on purpose where it must be
// ignored, so using it would change the links).
func TestPrepareFacts_knownExtraction(t *testing.T) {
	facts := func() []*holomem.Fact {
		var fs []*holomem.Fact
		for i := range 40 {
			f := &holomem.Fact{Content: fmt.Sprintf("Alice Moreau deployed Orion-%d to Frankfurt with Bob Lee, ticket PAY-%d", i%7, i)}
			if i%3 == 0 {
				f.Tags = []string{"kubernetes", fmt.Sprintf("team%d", i%4)}
			}
			fs = append(fs, f)
		}
		return fs
	}
	ref := facts()
	if _, err := mustOpen(t, filepath.Join(t.TempDir(), "ref.db")).CreateFacts(t.Context(), ref); err != nil {
		t.Fatal(err)
	}

	got := facts()
	wrong := text.Extract("Zed Quux met Yara Vell in Lisbon", nil)
	known := make([]*text.Extraction, len(got))
	used := 0
	for i, f := range got {
		switch {
		case i%5 == 4:
			// no extraction for this one
		case len(f.Tags) > 0:
			known[i] = &text.Extraction{Content: f.Content, Entities: wrong}
		case i%5 == 1:
			known[i] = &text.Extraction{Content: f.Content + " (edited)", Entities: wrong}
		default:
			known[i] = &text.Extraction{Content: f.Content, Entities: text.Extract(f.Content, nil)}
			used++
		}
	}
	if used == 0 {
		t.Fatal("no fact takes the known extraction: the test checks nothing")
	}
	s := mustOpen(t, filepath.Join(t.TempDir(), "known.db"))
	write, err := s.PrepareFacts(got, known)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := write(t.Context()); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !slices.Equal(got[i].Entities, ref[i].Entities) {
			t.Errorf("fact %d (tags %v): entities %v, want %v", i, got[i].Tags, got[i].Entities, ref[i].Entities)
		}
		if len(ref[i].Entities) == 0 {
			t.Errorf("fact %d: no entities: the corpus does not exercise linking", i)
		}
	}
}
