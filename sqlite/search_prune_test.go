package sqlite_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
)

// TestStore_SearchText_CommonWordsPruned: when all terms together find
// nothing, the any-term search leaves out words most facts contain, so a
// rare word decides the ranking instead of hundreds of "common" matches.
func TestStore_SearchText_CommonWordsPruned(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "prune.db"))
	ctx := t.Context()
	var facts []*holomem.Fact
	for i := range 600 {
		facts = append(facts, &holomem.Fact{Content: fmt.Sprintf("common note number %d", i)})
	}
	rare := &holomem.Fact{Content: "common note about the zebracorn"}
	facts = append(facts, rare)
	if _, err := s.CreateFacts(ctx, facts); err != nil {
		t.Fatal(err)
	}
	ms, err := s.SearchText(ctx, "", "common zebracorn missingword", 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].ID != rare.ID {
		t.Errorf("SearchText = %v, want only #%d: the common word must not drag in every fact", ms, rare.ID)
	}
	// A query of only common words still finds something (the rarest is kept).
	ms, err = s.SearchText(ctx, "", "common note missingword", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 {
		t.Error("a query of common words found nothing")
	}
}
