package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// feeder returns s as a ChangeFeeder and its cursor of now, or skips t.
func feeder(t *testing.T, s holomem.Store) (holomem.ChangeFeeder, int64) {
	t.Helper()
	cf, ok := holomem.As[holomem.ChangeFeeder](s)
	if !ok {
		t.Skip("store has no change feed")
	}
	cur, err := cf.FactChangeCursor(t.Context())
	if err != nil {
		t.Fatalf("FactChangeCursor: %v", err)
	}
	return cf, cur
}

// changes calls FactChanges and fails t on error.
func changes(t *testing.T, cf holomem.ChangeFeeder, since int64) ([]int64, int64) {
	t.Helper()
	ids, next, err := cf.FactChanges(t.Context(), since)
	if err != nil {
		t.Fatalf("FactChanges(%d): %v", since, err)
	}
	return ids, next
}

// testFeedWrites: every kind of write to a fact shows up in the feed with
// the fact's id, and the feed is quiet after it.
func testFeedWrites(t *testing.T, s holomem.Store) {
	cf, cur := feeder(t, s)
	ctx := t.Context()
	var a, b, c, d *holomem.Fact
	steps := []struct {
		name string
		do   func() error
		want func() []int64
	}{
		{"CreateFact", func() error {
			a = create(t, s, fact("We deployed nginx with Ansible on all servers"))
			return nil
		}, func() []int64 { return []int64{a.ID} }},
		// The second mention promotes nginx to an entity and links the
		// first fact too: a change of a's links only.
		{"CreateFact/LinksOlderFact", func() error {
			b = create(t, s, fact("nginx returns 502 when the upstream pool is exhausted"))
			return nil
		}, func() []int64 { return []int64{a.ID, b.ID} }},
		{"CreateFacts", func() error {
			c, d = fact("Grace prefers tabs"), fact("Bob reviews every release")
			_, err := s.CreateFacts(ctx, []*holomem.Fact{c, d})
			return err
		}, func() []int64 { return []int64{c.ID, d.ID} }},
		{"CreateFact/Duplicate", func() error {
			_, err := s.CreateFact(ctx, fact("Grace prefers tabs"))
			return err
		}, func() []int64 { return nil }},
		{"UpdateFact/Metadata", func() error {
			_, err := s.UpdateFact(ctx, c.ID, holomem.FactUpdate{Trust: ptr(0.9)})
			return err
		}, func() []int64 { return []int64{c.ID} }},
		{"UpdateFact/Content", func() error {
			_, err := s.UpdateFact(ctx, d.ID, holomem.FactUpdate{Content: ptr("Alice reviews every release")})
			return err
		}, func() []int64 { return []int64{d.ID} }},
		{"MarkRetrieved", func() error { return s.MarkRetrieved(ctx, []int64{b.ID, c.ID}) },
			func() []int64 { return []int64{b.ID, c.ID} }},
		{"RecordFeedback", func() error {
			_, err := s.RecordFeedback(ctx, d.ID, true)
			return err
		}, func() []int64 { return []int64{d.ID} }},
		{"SetEmbeddings", func() error {
			return s.SetEmbeddings(ctx, "test-model", map[int64][]float32{c.ID: {1, 0}})
		}, func() []int64 { return []int64{c.ID} }},
		{"Supersede", func() error { return s.Supersede(ctx, c.ID, d.ID) },
			func() []int64 { return []int64{c.ID} }},
		{"CreateEdge", func() error {
			_, err := s.CreateEdge(ctx, &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 1, Origin: holomem.OriginUser})
			return err
		}, func() []int64 { return nil }},
		{"DeleteFact", func() error { return s.DeleteFact(ctx, a.ID) },
			func() []int64 { return []int64{a.ID} }},
		// Deleting the newer fact clears the older one's superseded_by.
		{"DeleteFact/Superseding", func() error { return s.DeleteFact(ctx, d.ID) },
			func() []int64 { return []int64{c.ID, d.ID} }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		ids, next := changes(t, cf, cur)
		got := slices.Compact(slices.Sorted(slices.Values(ids)))
		want := slices.Sorted(slices.Values(st.want()))
		if !slices.Equal(got, want) {
			t.Errorf("%s: changed ids %v; want %v", st.name, ids, want)
		}
		if again, _ := changes(t, cf, next); len(again) != 0 {
			t.Errorf("%s: changes after the next cursor %v; want none", st.name, again)
		}
		cur = next
	}
}

// testFeedCursor: a cursor taken after a write does not report it, one
// taken before does until the follower moves on, and cursors that are not
// the store's give ErrChangesPruned with a cursor that works.
func testFeedCursor(t *testing.T, s holomem.Store) {
	cf, start := feeder(t, s)
	ctx := t.Context()
	if ids, _ := changes(t, cf, start); len(ids) != 0 {
		t.Errorf("changes on an empty store: %v", ids)
	}
	a := create(t, s, fact("alpha"))
	after, err := cf.FactChangeCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ids, _ := changes(t, cf, after); len(ids) != 0 {
		t.Errorf("changes since a cursor taken after the write: %v; want none", ids)
	}
	b := create(t, s, fact("beta"))
	for range 2 { // reading does not consume
		if ids, _ := changes(t, cf, start); !slices.Equal(ids, []int64{a.ID, b.ID}) {
			t.Errorf("changes since the start: %v; want %v", ids, []int64{a.ID, b.ID})
		}
	}
	ids, next := changes(t, cf, after)
	if !slices.Equal(ids, []int64{b.ID}) {
		t.Errorf("changes since the cursor between the writes: %v; want [%d]", ids, b.ID)
	}
	if next < after {
		t.Errorf("next cursor %d went back from %d", next, after)
	}
	for _, bad := range []int64{-1, next + 1<<40} {
		ids, n, err := cf.FactChanges(ctx, bad)
		if !errors.Is(err, holomem.ErrChangesPruned) || len(ids) != 0 {
			t.Errorf("FactChanges(%d) = %v, %v; want ErrChangesPruned", bad, ids, err)
			continue
		}
		if ids, _ := changes(t, cf, n); len(ids) != 0 {
			t.Errorf("changes since the cursor ErrChangesPruned gave: %v; want none", ids)
		}
	}
}

// testFeedTooMany: a follower more than MaxFactChanges behind reloads:
// ErrChangesPruned, then the cursor it came with follows later writes.
func testFeedTooMany(t *testing.T, s holomem.Store) {
	cf, start := feeder(t, s)
	ctx := t.Context()
	fs := make([]*holomem.Fact, 250)
	for i := range fs {
		fs[i] = &holomem.Fact{Content: "fact number " + string(rune('a'+i%26)) + string(rune('a'+i/26))}
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	all := ids(fs)
	for n := len(fs); n <= holomem.MaxFactChanges; n += len(fs) {
		if err := s.MarkRetrieved(ctx, all); err != nil {
			t.Fatal(err)
		}
	}
	ids, next, err := cf.FactChanges(ctx, start)
	if !errors.Is(err, holomem.ErrChangesPruned) || len(ids) != 0 {
		t.Fatalf("FactChanges with more than %d pending = %d ids, %v; want ErrChangesPruned", holomem.MaxFactChanges, len(ids), err)
	}
	if got, _ := changes(t, cf, next); len(got) != 0 {
		t.Errorf("changes since the cursor ErrChangesPruned gave: %d ids; want none", len(got))
	}
	if _, err := s.RecordFeedback(ctx, fs[7].ID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := changes(t, cf, next); !slices.Equal(got, []int64{fs[7].ID}) {
		t.Errorf("changes after the reload: %v; want [%d]", got, fs[7].ID)
	}
}

// testFeedOwnChange: a store that tells its own writes apart returns, with
// a created fact, the very entry its feed reports for that insert; the
// feed's entries give the ids FactChanges gives; another write's entry,
// of the same fact or another, is a different entry; a duplicate reports
// no entry.
func testFeedOwnChange(t *testing.T, s holomem.Store) {
	cf, start := feeder(t, s)
	own, ok := cf.(holomem.OwnChangeFeeder)
	if !ok {
		t.Skip("store does not tell its own writes apart")
	}
	ctx := t.Context()
	other := create(t, s, fact("Bob reviews every release"))
	f := fact("We deployed nginx with Ansible on all servers")
	created, c, err := own.CreateFactLogged(ctx, f)
	if err != nil || !created {
		t.Fatalf("CreateFactLogged = %v, %v", created, err)
	}
	if c.ID != f.ID || f.ID == 0 {
		t.Fatalf("entry %+v for fact #%d", c, f.ID)
	}
	if _, err := s.RecordFeedback(ctx, f.ID, true); err != nil {
		t.Fatal(err)
	}
	log, next, err := own.FactChangeLog(ctx, start)
	if err != nil {
		t.Fatalf("FactChangeLog: %v", err)
	}
	ids, idsNext := changes(t, cf, start)
	var logIDs []int64
	seen := map[holomem.FactChange]bool{}
	for _, e := range log {
		logIDs = append(logIDs, e.ID)
		seen[e] = true
	}
	if !slices.Equal(logIDs, ids) || next != idsNext {
		t.Errorf("FactChangeLog ids %v next %d; FactChanges %v next %d", logIDs, next, ids, idsNext)
	}
	if !seen[c] {
		t.Fatalf("the feed %+v lacks the entry %+v CreateFactLogged returned", log, c)
	}
	var ofF, ofOther int
	for _, e := range log {
		switch e.ID {
		case f.ID:
			ofF++
		case other.ID:
			ofOther++
		}
	}
	if ofF < 2 || ofOther < 1 {
		t.Errorf("feed %+v: want the insert and the feedback of #%d and the insert of #%d as entries of their own", log, f.ID, other.ID)
	}
	dup := fact("We deployed nginx with Ansible on all servers")
	created, c, err = own.CreateFactLogged(ctx, dup)
	if err != nil || created || c != (holomem.FactChange{}) || dup.ID != f.ID {
		t.Errorf("CreateFactLogged of a duplicate = %v, %+v, %v (fact #%d); want false, no entry, #%d", created, c, err, dup.ID, f.ID)
	}
}
