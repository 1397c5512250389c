package sqlite_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// TestRecentFactIDsByEntities: each name's answer is RecentFactIDsByEntity's,
// in the names' order, nil for unknown or empty names.
func TestRecentFactIDsByEntities(t *testing.T) {
	ctx := t.Context()
	s := mustOpen(t, filepath.Join(t.TempDir(), "h.db"))
	for i := range 9 {
		content := fmt.Sprintf("Alice deploys service number %d", i)
		if i%3 == 0 {
			content = fmt.Sprintf("Alice and Bob review release %d", i)
		}
		if _, err := s.CreateFact(ctx, &holomem.Fact{Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateFact(ctx, &holomem.Fact{Namespace: "other", Content: "Bob plans the offsite"}); err != nil {
		t.Fatal(err)
	}
	names := []string{"Bob", "Nobody", "alice", "", "Alice"}
	for _, ns := range []string{"", "other"} {
		for _, limit := range []int{0, 1, 3, 100} {
			got, err := s.RecentFactIDsByEntities(ctx, ns, names, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(names) {
				t.Fatalf("%q/%d: %d answers for %d names", ns, limit, len(got), len(names))
			}
			for i, name := range names {
				want, err := s.RecentFactIDsByEntity(ctx, ns, name, limit)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[i], want) {
					t.Errorf("%q/%d %q = %v, want %v", ns, limit, name, got[i], want)
				}
			}
			if limit == 3 && ns == "" && len(got[0]) != 3 {
				t.Errorf("Bob/3 = %v, want 3 ids", got[0])
			}
		}
	}
}
