package retrieve_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestSyncChanges_appliesOnlyWhatChanged: replica b follows the writes of
// replica a (the same database, as two serve processes share one) by the
// change feed: a's adds become probe-able and searchable on b, a's deletes
// and supersedes leave b, and none of it reloads b's vectors, whatever the
// namespace written. Each synced fact costs b its own row only.
func TestSyncChanges_appliesOnlyWhatChanged(t *testing.T) {
	ctx := t.Context()
	st := testutil.MustOpenStore(t)
	emb := testutil.MustTinyEmbedder(t)
	a := testutil.MustNewMemory(t, st, retrieve.Options{Embedder: emb})
	b := testutil.MustNewMemory(t, st, retrieve.Options{Embedder: emb})
	add := func(m *retrieve.Memory, ns, content string) int64 {
		t.Helper()
		r, err := m.Remember(ctx, &holomem.Fact{Namespace: ns, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return r.Fact.ID
	}
	probe := func(entity string) []int64 {
		t.Helper()
		hs, err := b.Probe(ctx, "", entity, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range hs {
			ids = append(ids, h.Fact.ID)
		}
		slices.Sort(ids)
		return ids
	}
	seed := add(a, "", "Kafka runs on the Frankfurt cluster")
	if err := b.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	if got := probe("Kafka"); !slices.Equal(got, []int64{seed}) {
		t.Fatalf("probe Kafka on b before any sync = %v, want [%d]", got, seed)
	}
	sync := func() {
		t.Helper()
		if err := b.SyncChanges(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	before := b.SyncStats()

	var added []int64
	for i := range 5 {
		added = append(added, add(a, "", fmt.Sprintf("Kafka topic %d is replicated three times", i)))
	}
	other := add(a, "tenantx", "Kafka belongs to tenant x as well")
	sync()
	want := append([]int64{seed}, added...)
	if got := probe("Kafka"); !slices.Equal(got, want) {
		t.Fatalf("probe Kafka on b after a's adds = %v, want %v", got, want)
	}
	for _, id := range added {
		if b.Index().VectorOf(holomem.DefaultNamespace, id) == nil {
			t.Errorf("fact %d added on a has no vector on b after the sync", id)
		}
	}
	if b.Index().VectorOf("tenantx", other) == nil {
		t.Errorf("tenantx's fact %d has no vector on b after the sync", other)
	}

	if err := a.Forget(ctx, added[0]); err != nil {
		t.Fatal(err)
	}
	if err := a.Supersede(ctx, added[1], added[2]); err != nil {
		t.Fatal(err)
	}
	sync()
	want = []int64{seed, added[2], added[3], added[4]}
	if got := probe("Kafka"); !slices.Equal(got, want) {
		t.Fatalf("probe Kafka on b after a's forget and supersede = %v, want %v", got, want)
	}
	for _, id := range added[:2] {
		if b.Index().VectorOf(holomem.DefaultNamespace, id) != nil {
			t.Errorf("fact %d (deleted or superseded on a) still has a vector on b", id)
		}
	}

	after := b.SyncStats()
	if after.FullReloads != before.FullReloads {
		t.Errorf("b reloaded all vectors %d times for a's writes", after.FullReloads-before.FullReloads)
	}
	facts := after.Facts - before.Facts
	if facts == 0 {
		t.Fatal("b applied no changed facts")
	}
	perFact := (after.Bytes - before.Bytes) / facts
	t.Logf("b applied %d changed facts, %d bytes each", facts, perFact)
	if perFact > 100<<10 {
		t.Errorf("b read %d bytes per changed fact, want <= 100 KB", perFact)
	}
}
