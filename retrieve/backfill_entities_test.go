package retrieve_test

import (
	"testing"

	"github.com/holomem/holomem/internal/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestBackfill_entities: backfill derives entities again once, reporting
// progress under "entities", and not again while extraction is unchanged.
func TestBackfill_entities(t *testing.T) {
	ctx := t.Context()
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	for _, c := range []string{"We deployed nginx with Ansible", "nginx returns 502"} {
		remember(t, m, c)
	}
	run := func() int {
		t.Helper()
		calls := 0
		if _, err := m.Backfill(ctx, func(phase string, done, total int) {
			if phase == "entities" {
				calls++
				if done > total || total != 2 {
					t.Errorf("progress %d/%d; want at most 2 of 2", done, total)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		return calls
	}
	if n := run(); n == 0 {
		t.Error("first backfill reported no entity progress")
	}
	if n := run(); n != 0 {
		t.Errorf("second backfill relinked again (%d progress calls)", n)
	}
	if ids, err := s.FactIDsByEntity(ctx, "", "nginx"); err != nil || len(ids) != 2 {
		t.Errorf("FactIDsByEntity(nginx) = %v, %v; want 2 facts", ids, err)
	}
}
