package postgres_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
)

// TestCreateFacts_sameAsOneByOne stores one batch with CreateFacts (the
// set-based path) and the same facts one by one with CreateFact (the
// per-fact path) in two schemas, and compares everything they report and
// store: ids, created flags, entities and their aliases, duplicates within
// the batch and against earlier facts, vectors.
func TestCreateFacts_sameAsOneByOne(t *testing.T) {
	ctx := t.Context()
	at := time.Date(2022, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := postgres.WithClock(func() time.Time { return at.Add(time.Hour) })
	batch := mustOpen(t, pgtest.Addr(t), clock)
	single := mustOpen(t, pgtest.Addr(t), clock)
	mk := func() []*holomem.Fact {
		return []*holomem.Fact{
			{Content: "Robert Smith aka Bob runs the Kafka cluster", HRR: []byte{1, 2}},
			{Content: "Bob restarted Kafka on Friday"},
			{Content: "Alice and Bob moved Kafka to Frankfurt", Embedding: []float32{1, 0}, ModelID: "m"},
			{Content: "Bob restarted Kafka on Friday"},                          // duplicate in the batch
			{Content: "Seed fact about Zed"},                                    // duplicate of an earlier fact
			{Content: "commit: fix Kafka", ExternalKey: "git:1", CreatedAt: at}, // keyed
			{Content: "commit: fix Kafka", ExternalKey: "git:2"},                // same content, other key: a new fact
			{Content: "commit: fix Kafka"},                                      // key-less: the keyed fact with this content
			{Content: "other namespace Bob", Namespace: "team"},
			{Content: "x", ExternalKey: "git:1"}, // same key as an earlier fact of the batch
		}
	}
	for _, s := range []holomem.Store{batch, single} {
		if _, err := s.CreateFact(ctx, &holomem.Fact{Content: "Seed fact about Zed"}); err != nil {
			t.Fatal(err)
		}
	}
	bf := mk()
	bc, err := batch.CreateFacts(ctx, bf)
	if err != nil {
		t.Fatal(err)
	}
	sf := mk()
	var sc []bool
	for _, f := range sf {
		c, err := single.CreateFact(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		sc = append(sc, c)
	}
	if !slices.Equal(bc, sc) {
		t.Errorf("created = %v, one by one %v", bc, sc)
	}
	for i := range bf {
		if fmt.Sprintf("%+v", *bf[i]) != fmt.Sprintf("%+v", *sf[i]) {
			t.Errorf("fact %d: batch %+v\none by one %+v", i, *bf[i], *sf[i])
		}
	}
	for _, ns := range []string{"default", "team"} {
		be, err1 := batch.FindEntities(ctx, ns, 0)
		se, err2 := single.FindEntities(ctx, ns, 0)
		if err1 != nil || err2 != nil || fmt.Sprint(deref(be)) != fmt.Sprint(deref(se)) {
			t.Errorf("entities of %s: batch %v (%v), one by one %v (%v)", ns, deref(be), err1, deref(se), err2)
		}
	}
	all := holomem.FactFilter{IncludeSuperseded: true, WithEmbedding: true, WithHRR: true}
	bs, _, err1 := batch.FindFacts(ctx, all)
	ss, _, err2 := single.FindFacts(ctx, all)
	if err1 != nil || err2 != nil || len(bs) != len(ss) {
		t.Fatalf("FindFacts: %d (%v) vs %d (%v)", len(bs), err1, len(ss), err2)
	}
	for i := range bs {
		if fmt.Sprintf("%+v", *bs[i]) != fmt.Sprintf("%+v", *ss[i]) {
			t.Errorf("stored fact %d: batch %+v\none by one %+v", i, *bs[i], *ss[i])
		}
	}
	for _, s := range []holomem.Store{batch, single} {
		st, err := s.Stats(ctx, "")
		if err != nil || st.WithoutHRR != len(bs)-1 {
			t.Errorf("WithoutHRR = %d, %v; want %d (NULL for facts without a vector)", st.WithoutHRR, err, len(bs)-1)
		}
		if ms, _ := s.SearchText(ctx, "", "frankfurt", 5); len(ms) != 1 {
			t.Errorf("SearchText(frankfurt) = %v", ms)
		}
	}
}

func deref(es []*holomem.Entity) []holomem.Entity {
	out := make([]holomem.Entity, len(es))
	for i, e := range es {
		out[i] = *e
		out[i].ID = 0
	}
	return out
}
