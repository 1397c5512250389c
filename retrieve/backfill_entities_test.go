package retrieve_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestBackfill_entities: backfill derives entities again once after an
// upgrade, reporting progress under "entities", and not again while
// extraction is unchanged; a new store needs none.
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
	// A new store's entities are current: nothing to derive again.
	if n := run(); n != 0 {
		t.Errorf("backfill of a new store relinked (%d progress calls)", n)
	}
	// A store whose entities an older version derived.
	if err := s.SetMeta(ctx, holomem.MetaEntityFingerprint, "older"); err != nil {
		t.Fatal(err)
	}
	if n := run(); n == 0 {
		t.Error("backfill after an upgrade reported no entity progress")
	}
	if n := run(); n != 0 {
		t.Errorf("second backfill relinked again (%d progress calls)", n)
	}
	if ids, err := s.FactIDsByEntity(ctx, "", "nginx"); err != nil || len(ids) != 2 {
		t.Errorf("FactIDsByEntity(nginx) = %v, %v; want 2 facts", ids, err)
	}
}

// TestProbe_lowercaseTerms: probe, reason and related find a lower-case
// term the store made an entity once it recurred, although the vectors of
// its facts were written before it was one; a sentence opener is no entity.
func TestProbe_lowercaseTerms(t *testing.T) {
	ctx := t.Context()
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	a := remember(t, m, "We deployed nginx with Ansible on all servers")
	b := remember(t, m, "nginx returns 502 when the upstream pool is exhausted")
	remember(t, m, "Kudos to the team for the clean migration")
	c := remember(t, m, "у Алексея есть пароль от стенда")
	hits, err := m.Probe(ctx, "", "nginx", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !slices.Equal(got, []int64{a.ID, b.ID}) {
		t.Errorf("probe nginx = %v; want %v", got, []int64{a.ID, b.ID})
	}
	hits, err = m.Reason(ctx, "", []string{"nginx", "Ansible"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) == 0 || got[0] != a.ID {
		t.Errorf("reason nginx Ansible = %v; want %d first", got, a.ID)
	}
	rel, err := m.Related(ctx, "", "nginx", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) == 0 || !strings.EqualFold(rel[0].Entity, "Ansible") {
		t.Errorf("related nginx = %+v; want Ansible", rel)
	}
	if _, err := s.FindEntity(ctx, "", "Kudos"); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("FindEntity(Kudos) = %v; want ErrNotFound", err)
	}
	hits, err = m.Probe(ctx, "", "Алексей", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); len(got) == 0 || got[0] != c.ID {
		t.Errorf("probe Алексей = %v; want %d first", got, c.ID)
	}
}

// TestDiagnose_staleEntities: doctor tells to run backfill while the
// entities were derived by an older version, and not after.
func TestDiagnose_staleEntities(t *testing.T) {
	ctx := t.Context()
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	remember(t, m, "We deployed nginx with Ansible")
	has := func() bool {
		t.Helper()
		d, err := m.Diagnose(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range d.Findings {
			if f.Check == "entities" {
				return true
			}
		}
		return false
	}
	if has() {
		t.Error("a new store is reported as having stale entities")
	}
	if err := s.SetMeta(ctx, holomem.MetaEntityFingerprint, "older"); err != nil {
		t.Fatal(err)
	}
	if !has() {
		t.Error("stale entities not reported")
	}
	if _, err := m.Backfill(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if has() {
		t.Error("stale entities still reported after backfill")
	}
}
