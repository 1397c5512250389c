package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

func testCreateFactOK(t *testing.T, s holomem.Store) {
	before := time.Now().Add(-time.Second)
	f := create(t, s, &holomem.Fact{
		Content:     "Alice prefers tabs over spaces",
		Tags:        []string{" #Style ", "style", "Editor"},
		Source:      " agent ",
		ExternalKey: " note:1 ",
		Anchor:      &holomem.Anchor{Path: "docs/style.md", Hash: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		HRR:         []byte{1, 2, 3},
	})
	if f.ID <= 0 {
		t.Fatalf("ID = %d, want > 0", f.ID)
	}
	if got, want := f.Namespace, holomem.DefaultNamespace; got != want {
		t.Errorf("Namespace = %q, want %q", got, want)
	}
	if got, want := f.Category, holomem.DefaultCategory; got != want {
		t.Errorf("Category = %q, want %q", got, want)
	}
	if got, want := f.Trust, holomem.DefaultTrust; got != want {
		t.Errorf("Trust = %v, want %v", got, want)
	}
	if got, want := f.Tags, []string{"style", "editor"}; !slices.Equal(got, want) {
		t.Errorf("Tags = %q, want %q", got, want)
	}
	if f.CreatedAt.Before(before) || !f.UpdatedAt.Equal(f.CreatedAt) {
		t.Errorf("CreatedAt = %v, UpdatedAt = %v: want now and equal", f.CreatedAt, f.UpdatedAt)
	}
	got := find(t, s, f.ID)
	if got.Content != f.Content || got.Source != "agent" || got.ExternalKey != "note:1" ||
		!slices.Equal(got.Tags, f.Tags) || !got.CreatedAt.Equal(f.CreatedAt) || !got.UpdatedAt.Equal(f.UpdatedAt) ||
		got.Trust != f.Trust || got.Namespace != f.Namespace || got.Category != f.Category {
		t.Errorf("FindFactByID = %+v, want %+v", got, f)
	}
	if got.Anchor == nil || *got.Anchor != *f.Anchor {
		t.Errorf("Anchor = %+v, want %+v", got.Anchor, f.Anchor)
	}
	if !slices.Contains(got.Entities, "Alice") || !slices.Equal(got.Entities, f.Entities) {
		t.Errorf("Entities = %q (create gave %q), want Alice among them", got.Entities, f.Entities)
	}
	if got.SupersededBy != 0 || got.RetrievalCount != 0 || got.HelpfulCount != 0 || got.UnhelpfulCount != 0 {
		t.Errorf("counters = %+v, want zero", got)
	}
}

func testCreateFactKeepsTimestamps(t *testing.T, s holomem.Store) {
	created := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	updated := created.Add(time.Hour)
	f := create(t, s, &holomem.Fact{Content: "imported long ago", CreatedAt: created, UpdatedAt: updated, HelpfulCount: 3, Trust: 0.9})
	got := find(t, s, f.ID)
	if !got.CreatedAt.Equal(created) || !got.UpdatedAt.Equal(updated) {
		t.Errorf("times = %v, %v; want %v, %v", got.CreatedAt, got.UpdatedAt, created, updated)
	}
	if got.HelpfulCount != 3 || got.Trust != 0.9 {
		t.Errorf("HelpfulCount, Trust = %d, %v; want 3, 0.9", got.HelpfulCount, got.Trust)
	}
	g := create(t, s, &holomem.Fact{Content: "only created given", CreatedAt: created})
	if !g.UpdatedAt.Equal(created) {
		t.Errorf("UpdatedAt = %v, want CreatedAt %v", g.UpdatedAt, created)
	}
}

func testCreateFactDuplicate(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("The deploy runs on Fridays"))
	dup := &holomem.Fact{Content: "The deploy runs on Fridays", Category: "other", Tags: []string{"x"}}
	created, err := s.CreateFact(ctx, dup)
	if err != nil || created {
		t.Fatalf("duplicate CreateFact = %v, %v; want false, nil", created, err)
	}
	if dup.ID != a.ID || dup.Category != holomem.DefaultCategory || len(dup.Tags) != 0 {
		t.Errorf("duplicate loaded %+v, want the existing fact %+v", dup, a)
	}
	// Content is compared exactly: different spacing or case is a new fact.
	create(t, s, fact("The deploy runs on Fridays "))
	create(t, s, fact("the deploy runs on Fridays"))
	// The same content in another namespace is another fact.
	b := create(t, s, &holomem.Fact{Content: "The deploy runs on Fridays", Namespace: "other"})
	if b.ID == a.ID {
		t.Errorf("fact in another namespace got the same id %d", a.ID)
	}
}

func testCreateFactExternalKey(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "Issue 12: crash on start", ExternalKey: "github:o/r#12"})
	again := &holomem.Fact{Content: "Issue 12: crash on start (edited)", ExternalKey: "github:o/r#12"}
	created, err := s.CreateFact(ctx, again)
	if err != nil || created || again.ID != a.ID || again.Content != a.Content {
		t.Fatalf("same external key: created=%v err=%v fact=%+v; want the existing fact %d", created, err, again, a.ID)
	}
	got, err := s.FindFactByExternalKey(ctx, holomem.DefaultNamespace, "github:o/r#12")
	if err != nil || got.ID != a.ID {
		t.Fatalf("FindFactByExternalKey = %v, %v; want fact %d", got, err, a.ID)
	}
	_, err = s.FindFactByExternalKey(ctx, holomem.DefaultNamespace, "github:o/r#13")
	wantErr(t, "unknown key", err, holomem.ErrNotFound)
	_, err = s.FindFactByExternalKey(ctx, "other", "github:o/r#12")
	wantErr(t, "key in another namespace", err, holomem.ErrNotFound)
	// The same key in another namespace is another fact.
	create(t, s, &holomem.Fact{Content: "Issue 12: crash on start", ExternalKey: "github:o/r#12", Namespace: "other"})
	// Facts without a key do not collide on the empty key.
	create(t, s, fact("no key one"))
	create(t, s, fact("no key two"))

	// Distinct keys with the same content are distinct records (two
	// commits with the message "Fix typo"), not "already there".
	c1 := create(t, s, &holomem.Fact{Content: "Fix typo", ExternalKey: "git:r@aaaaaaa"})
	c2 := create(t, s, &holomem.Fact{Content: "Fix typo", ExternalKey: "git:r@bbbbbbb"})
	if c1.ID == c2.ID {
		t.Fatalf("two keys with the same content share fact %d", c1.ID)
	}
	// A key-less fact with that content is deduplicated against them, and
	// an update may not give a key-less fact another's content.
	plain := &holomem.Fact{Content: "Fix typo"}
	if created, err := s.CreateFact(ctx, plain); err != nil || created || plain.ID != c1.ID {
		t.Errorf("key-less duplicate of keyed content: created=%v err=%v id=%d; want the existing fact %d", created, err, plain.ID, c1.ID)
	}
	other := create(t, s, fact("something else"))
	content := "Fix typo"
	_, err = s.UpdateFact(ctx, other.ID, holomem.FactUpdate{Content: &content})
	wantErr(t, "key-less fact updated to keyed content", err, holomem.ErrConflict)
	// A keyed fact may be edited to another keyed fact's content.
	c3 := create(t, s, &holomem.Fact{Content: "Fix typos", ExternalKey: "git:r@ccccccc"})
	if _, err := s.UpdateFact(ctx, c3.ID, holomem.FactUpdate{Content: &content}); err != nil {
		t.Errorf("keyed fact updated to another keyed fact's content: %v", err)
	}
}

func testCreateFactErrInvalid(t *testing.T, s holomem.Store) {
	tests := []struct {
		name string
		f    *holomem.Fact
	}{
		{"Empty", fact("")},
		{"Whitespace", fact(" \t\n ")},
		{"InvalidUTF8", fact("bad \xff\xfe bytes")},
		{"NUL", fact("nul \x00 byte")},
		{"OneMegabyte", fact(strings.Repeat("a", 1<<20))},
		{"TrustAboveOne", &holomem.Fact{Content: "x", Trust: 1.5}},
		{"TrustNegative", &holomem.Fact{Content: "x", Trust: -0.1}},
		{"TooManyTags", &holomem.Fact{Content: "x", Tags: manyTags(holomem.MaxTags + 1)}},
		{"LongCategory", &holomem.Fact{Content: "x", Category: strings.Repeat("c", holomem.MaxLabelBytes+1)}},
		{"EmbeddingWithoutModel", &holomem.Fact{Content: "x", Embedding: []float32{1, 0}}},
		{"EmptyAnchorPath", &holomem.Fact{Content: "x", Anchor: &holomem.Anchor{Path: " "}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			created, err := s.CreateFact(t.Context(), tt.f)
			if created || !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("CreateFact = %v, %v; want ErrInvalid", created, err)
			}
		})
	}
	_, err := s.CreateFact(t.Context(), nil)
	wantErr(t, "nil fact", err, holomem.ErrInvalid)
	fs, n, err := s.FindFacts(t.Context(), holomem.FactFilter{})
	if err != nil || n != 0 || len(fs) != 0 {
		t.Errorf("after invalid creates FindFacts = %d facts, total %d, %v; want none", len(fs), n, err)
	}
}

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

func testCreateFactLargeContent(t *testing.T, s holomem.Store) {
	// The largest content allowed is stored, found and searchable.
	words := strings.Repeat("lorem ipsum dolor ", holomem.MaxContentBytes/18)
	content := (words + strings.Repeat("z", holomem.MaxContentBytes))[:holomem.MaxContentBytes-len(" uniqueword")] + " uniqueword"
	f := create(t, s, fact(content))
	if got := find(t, s, f.ID); got.Content != content {
		t.Fatalf("large content round trip: %d bytes back, want %d", len(got.Content), len(content))
	}
	if ms := search(t, s, "", "uniqueword", 5); len(ms) != 1 || ms[0].ID != f.ID {
		t.Errorf("SearchText(uniqueword) = %v, want fact %d", ms, f.ID)
	}
}

func testCreateFactsBatch(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	pre := create(t, s, fact("already here"))
	batch := []*holomem.Fact{
		fact("first of the batch"),
		fact("already here"),
		fact("second of the batch"),
		fact("first of the batch"),
		{Content: "keyed", ExternalKey: "k1"},
		{Content: "keyed again", ExternalKey: "k1"},
	}
	created, err := s.CreateFacts(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := created, []bool{true, false, true, false, true, false}; !slices.Equal(got, want) {
		t.Errorf("created = %v, want %v", got, want)
	}
	if batch[1].ID != pre.ID || batch[3].ID != batch[0].ID || batch[5].ID != batch[4].ID {
		t.Errorf("duplicates got ids %d %d %d, want %d %d %d", batch[1].ID, batch[3].ID, batch[5].ID, pre.ID, batch[0].ID, batch[4].ID)
	}
	_, n, err := s.FindFacts(ctx, holomem.FactFilter{})
	if err != nil || n != 4 {
		t.Errorf("total = %d, %v; want 4", n, err)
	}
	got, err := s.CreateFacts(ctx, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("CreateFacts(nil) = %v, %v", got, err)
	}
}

func testCreateFactsAllOrNothing(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	_, err := s.CreateFacts(ctx, []*holomem.Fact{fact("good one"), fact(""), fact("good two")})
	wantErr(t, "batch with an empty fact", err, holomem.ErrInvalid)
	if _, n, _ := s.FindFacts(ctx, holomem.FactFilter{}); n != 0 {
		t.Errorf("after a failed batch total = %d, want 0", n)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.CreateFacts(cancelled, []*holomem.Fact{fact("too late")}); err == nil {
		t.Error("CreateFacts with a cancelled context succeeded")
	}
	if _, err := s.CreateFact(cancelled, fact("too late")); err == nil {
		t.Error("CreateFact with a cancelled context succeeded")
	}
	if _, n, _ := s.FindFacts(ctx, holomem.FactFilter{}); n != 0 {
		t.Errorf("after cancelled writes total = %d, want 0", n)
	}
}

func testFindFactByIDErrNotFound(t *testing.T, s holomem.Store) {
	for _, id := range []int64{0, -1, 1, 1 << 62} {
		_, err := s.FindFactByID(t.Context(), id)
		wantErr(t, fmt.Sprint("FindFactByID ", id), err, holomem.ErrNotFound)
	}
}

func testFindFactsFilters(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "alpha", Category: "project", Tags: []string{"go", "db"}, Source: "agent"})
	b := create(t, s, &holomem.Fact{Content: "beta", Category: "tool", Tags: []string{"godb"}, Source: "import:github"})
	c := create(t, s, &holomem.Fact{Content: "gamma", Category: "project", Tags: []string{"db"}, Namespace: "team", HRR: []byte{9, 9}})
	d := create(t, s, &holomem.Fact{Content: "delta", Category: "project"})
	if err := s.Supersede(ctx, d.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbeddings(ctx, "m1", map[int64][]float32{a.ID: {1, 0}, c.ID: {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbeddings(ctx, "m2", map[int64][]float32{b.ID: {0.5, 0.5}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter holomem.FactFilter
		want   []int64
	}{
		{"All", holomem.FactFilter{}, []int64{a.ID, b.ID, c.ID}},
		{"IncludeSuperseded", holomem.FactFilter{IncludeSuperseded: true}, []int64{a.ID, b.ID, c.ID, d.ID}},
		{"Namespace", holomem.FactFilter{Namespace: ptr("team")}, []int64{c.ID}},
		{"NamespaceDefault", holomem.FactFilter{Namespace: ptr(holomem.DefaultNamespace)}, []int64{a.ID, b.ID}},
		{"Category", holomem.FactFilter{Category: ptr("project")}, []int64{a.ID, c.ID}},
		{"Tag", holomem.FactFilter{Tag: ptr("db")}, []int64{a.ID, c.ID}},
		{"TagIsWhole", holomem.FactFilter{Tag: ptr("go")}, []int64{a.ID}},
		{"TagNormalised", holomem.FactFilter{Tag: ptr(" #DB ")}, []int64{a.ID, c.ID}},
		{"TagWildcard", holomem.FactFilter{Tag: ptr("%")}, nil},
		{"Source", holomem.FactFilter{Source: ptr("import:github")}, []int64{b.ID}},
		{"IDs", holomem.FactFilter{IDs: []int64{c.ID, a.ID, 999}}, []int64{a.ID, c.ID}},
		{"EmptyIDs", holomem.FactFilter{IDs: []int64{}}, nil},
		{"AfterID", holomem.FactFilter{AfterID: a.ID}, []int64{b.ID, c.ID}},
		{"WithoutEmbeddingFor", holomem.FactFilter{WithoutEmbeddingFor: ptr("m1"), IncludeSuperseded: true}, []int64{b.ID, d.ID}},
		{"Combined", holomem.FactFilter{Category: ptr("project"), Tag: ptr("db"), Namespace: ptr("team")}, []int64{c.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, n, err := s.FindFacts(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(fs); !slices.Equal(got, tt.want) || n != len(tt.want) {
				t.Errorf("FindFacts = %v (total %d), want %v", got, n, tt.want)
			}
			for _, f := range fs {
				if f.Embedding != nil || f.HRR != nil {
					t.Errorf("fact %d has vectors without WithEmbedding/WithHRR", f.ID)
				}
			}
		})
	}
	fs, _, err := s.FindFacts(ctx, holomem.FactFilter{WithEmbedding: true, WithHRR: true, IDs: []int64{a.ID, b.ID, c.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if fs[0].ModelID != "m1" || !slices.Equal(fs[0].Embedding, []float32{1, 0}) || fs[1].ModelID != "m2" ||
		!slices.Equal(fs[2].HRR, []byte{9, 9}) || fs[0].HRR != nil {
		t.Errorf("vectors: %+v %+v %+v", fs[0], fs[1], fs[2])
	}
	_, _, err = s.FindFacts(ctx, holomem.FactFilter{Limit: -1})
	wantErr(t, "negative limit", err, holomem.ErrInvalid)
}

func testFindFactsPaging(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	var all []int64
	for i := range 7 {
		all = append(all, create(t, s, fact(fmt.Sprintf("fact number %d", i))).ID)
	}
	fs, n, err := s.FindFacts(ctx, holomem.FactFilter{Offset: 2, Limit: 3})
	if err != nil || n != 7 || !slices.Equal(ids(fs), all[2:5]) {
		t.Errorf("Offset 2 Limit 3 = %v total %d (%v), want %v total 7", ids(fs), n, err, all[2:5])
	}
	fs, n, err = s.FindFacts(ctx, holomem.FactFilter{Offset: 5})
	if err != nil || n != 7 || !slices.Equal(ids(fs), all[5:]) {
		t.Errorf("Offset 5 = %v total %d (%v), want %v", ids(fs), n, err, all[5:])
	}
	fs, n, err = s.FindFacts(ctx, holomem.FactFilter{Offset: 50})
	if err != nil || n != 7 || len(fs) != 0 {
		t.Errorf("Offset 50 = %v total %d (%v), want none, total 7", ids(fs), n, err)
	}
	// Keyset paging visits every fact once.
	var seen []int64
	after := int64(0)
	for {
		fs, _, err := s.FindFacts(ctx, holomem.FactFilter{AfterID: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) == 0 {
			break
		}
		seen = append(seen, ids(fs)...)
		after = fs[len(fs)-1].ID
	}
	if !slices.Equal(seen, all) {
		t.Errorf("keyset paging = %v, want %v", seen, all)
	}
	// A lean page counts nothing: its total is what it returned, and it
	// carries no entities (a warm server loads every fact this way).
	fs, n, err = s.FindFacts(ctx, holomem.FactFilter{AfterID: all[1], Limit: 3, Lean: true})
	if err != nil || n != 3 || !slices.Equal(ids(fs), all[2:5]) {
		t.Errorf("Lean AfterID %d Limit 3 = %v total %d (%v), want %v total 3", all[1], ids(fs), n, err, all[2:5])
	}
	for _, f := range fs {
		if f.Entities != nil {
			t.Errorf("Lean fact %d has entities %v", f.ID, f.Entities)
		}
	}
}

var past = time.Date(2021, 6, 1, 0, 0, 0, 0, time.UTC)

func testUpdateFactContent(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, &holomem.Fact{Content: "Bob maintains the billing service", CreatedAt: past, HRR: []byte{1}})
	if err := s.SetEmbeddings(ctx, "m", map[int64][]float32{f.ID: {1}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateFact(ctx, f.ID, holomem.FactUpdate{Content: ptr("Carol maintains the invoicing service")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "Carol maintains the invoicing service" || !got.CreatedAt.Equal(past) || !got.UpdatedAt.After(past) {
		t.Errorf("after content update: %+v; want new content, same CreatedAt, UpdatedAt moved", got)
	}
	if !slices.Contains(got.Entities, "Carol") || slices.Contains(got.Entities, "Bob") {
		t.Errorf("Entities = %q, want Carol and not Bob", got.Entities)
	}
	if ids, _ := s.FactIDsByEntity(ctx, "", "Bob"); len(ids) != 0 {
		t.Errorf("FactIDsByEntity(Bob) = %v after the content changed, want none", ids)
	}
	if ms := search(t, s, "", "billing", 10); len(ms) != 0 {
		t.Errorf("old words still found: %v", ms)
	}
	if ms := search(t, s, "", "invoicing", 10); len(ms) != 1 || ms[0].ID != f.ID {
		t.Errorf("new words not found: %v", ms)
	}
	// The embedding described the old text; it is gone.
	fs, _, _ := s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{f.ID}, WithEmbedding: true, WithHRR: true})
	if len(fs) != 1 || fs[0].Embedding != nil {
		t.Errorf("embedding kept after a content change: %+v", fs)
	}
	// Content and HRR together.
	got, err = s.UpdateFact(ctx, f.ID, holomem.FactUpdate{Content: ptr("Dave maintains it now"), HRR: []byte{7, 7}})
	if err != nil {
		t.Fatal(err)
	}
	fs, _, _ = s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{f.ID}, WithHRR: true})
	if len(fs) != 1 || !slices.Equal(fs[0].HRR, []byte{7, 7}) {
		t.Errorf("HRR after update = %+v, want [7 7]", fs)
	}
	// The same content again is not a change.
	again, err := s.UpdateFact(ctx, f.ID, holomem.FactUpdate{Content: ptr("Dave maintains it now")})
	if err != nil || !again.UpdatedAt.Equal(got.UpdatedAt) {
		t.Errorf("same content: UpdatedAt %v -> %v (%v), want unchanged", got.UpdatedAt, again.UpdatedAt, err)
	}
}

func testUpdateFactMetadata(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, &holomem.Fact{Content: "metadata target", CreatedAt: past})
	got, err := s.UpdateFact(ctx, f.ID, holomem.FactUpdate{
		Category: ptr("project"),
		Tags:     &[]string{"A", "b", "a"},
		Source:   ptr("user"),
		Trust:    ptr(0.8),
		Anchor:   &holomem.Anchor{Path: "main.go", Hash: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Category != "project" || !slices.Equal(got.Tags, []string{"a", "b"}) || got.Source != "user" ||
		got.Trust != 0.8 || got.Anchor == nil || got.Anchor.Path != "main.go" {
		t.Errorf("after metadata update: %+v", got)
	}
	if !got.UpdatedAt.Equal(past) {
		t.Errorf("metadata edit moved UpdatedAt to %v, want %v", got.UpdatedAt, past)
	}
	if ms := search(t, s, "", "b", 10); len(ms) != 1 {
		t.Errorf("tag not searchable: %v", ms)
	}
	got, err = s.UpdateFact(ctx, f.ID, holomem.FactUpdate{Anchor: &holomem.Anchor{}, Tags: &[]string{}})
	if err != nil || got.Anchor != nil || len(got.Tags) != 0 {
		t.Errorf("clearing anchor and tags: %+v, %v", got, err)
	}
	got, err = s.UpdateFact(ctx, f.ID, holomem.FactUpdate{})
	if err != nil || got.ID != f.ID {
		t.Errorf("empty update = %+v, %v", got, err)
	}
}

func testUpdateFactErrConflict(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("first text"))
	b := create(t, s, fact("second text"))
	_, err := s.UpdateFact(ctx, b.ID, holomem.FactUpdate{Content: ptr("first text")})
	wantErr(t, "update to another fact's content", err, holomem.ErrConflict)
	if got := find(t, s, b.ID); got.Content != "second text" {
		t.Errorf("failed update changed content to %q", got.Content)
	}
	// The same content in another namespace is fine.
	c := create(t, s, &holomem.Fact{Content: "third text", Namespace: "other"})
	if _, err := s.UpdateFact(ctx, c.ID, holomem.FactUpdate{Content: ptr("first text")}); err != nil {
		t.Errorf("same content in another namespace: %v", err)
	}
	_ = a
}

func testUpdateFactErrors(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("valid"))
	_, err := s.UpdateFact(ctx, f.ID+100, holomem.FactUpdate{Trust: ptr(0.1)})
	wantErr(t, "unknown id", err, holomem.ErrNotFound)
	for name, upd := range map[string]holomem.FactUpdate{
		"EmptyContent": {Content: ptr("  ")},
		"InvalidUTF8":  {Content: ptr("\xff")},
		"NUL":          {Content: ptr("a\x00b")},
		"Trust":        {Trust: ptr(2.0)},
		"TooManyTags":  {Tags: ptr(manyTags(holomem.MaxTags + 1))},
	} {
		_, err := s.UpdateFact(ctx, f.ID, upd)
		wantErr(t, name, err, holomem.ErrInvalid)
	}
	if got := find(t, s, f.ID); got.Content != "valid" || got.Trust != holomem.DefaultTrust {
		t.Errorf("invalid updates changed the fact: %+v", got)
	}
}

func testDeleteFact(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("Erin owns the Zephyr project"))
	b := create(t, s, fact("Zephyr ships weekly"))
	c := create(t, s, fact("unrelated"))
	for _, e := range []*holomem.Edge{{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal}, {From: c.ID, To: a.ID, Kind: holomem.EdgeTemporal}, {From: b.ID, To: c.ID, Kind: holomem.EdgeTemporal}} {
		if _, err := s.CreateEdge(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteFact(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.FindFactByID(ctx, a.ID)
	wantErr(t, "deleted fact", err, holomem.ErrNotFound)
	wantErr(t, "delete again", s.DeleteFact(ctx, a.ID), holomem.ErrNotFound)
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{})
	if err != nil || len(es) != 1 || es[0].From != b.ID {
		t.Errorf("edges after delete = %v, %v; want only %d -> %d", es, err, b.ID, c.ID)
	}
	if ms := search(t, s, "", "Erin", 10); len(ms) != 0 {
		t.Errorf("deleted fact still searchable: %v", ms)
	}
	if _, err := s.FindEntity(ctx, "", "Erin"); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("entity only the deleted fact had: %v, want ErrNotFound", err)
	}
	if got, _ := s.FactIDsByEntity(ctx, "", "Zephyr"); !slices.Equal(got, []int64{b.ID}) {
		t.Errorf("FactIDsByEntity(Zephyr) = %v, want [%d]", got, b.ID)
	}
	// Content can be stored again after a delete.
	create(t, s, fact("Erin owns the Zephyr project"))
}

// testDeleteFactIDNotReused: an id names one fact forever. Agents and
// people keep ids, so the id of a forgotten fact must not come back for the
// next fact, in the same namespace or another.
func testDeleteFactIDNotReused(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("first fact"))
	b := create(t, s, fact("second fact"))
	if err := s.DeleteFact(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	c := create(t, s, fact("third fact"))
	if c.ID == b.ID || c.ID == a.ID {
		t.Fatalf("after deleting #%d the next fact got #%d: ids are reused", b.ID, c.ID)
	}
	if err := s.DeleteFact(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	other := fact("a fact elsewhere")
	other.Namespace = "other"
	d := create(t, s, other)
	if d.ID <= c.ID {
		t.Fatalf("after deleting #%d the next fact in another namespace got #%d: ids are reused", c.ID, d.ID)
	}
	// A batch continues after the largest id ever given, too.
	batch := []*holomem.Fact{fact("batch one"), fact("batch two")}
	if err := s.DeleteFact(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateFacts(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, f := range batch {
		if f.ID <= d.ID {
			t.Errorf("batch fact got #%d, not after the deleted #%d", f.ID, d.ID)
		}
	}
}

func testRecordFeedback(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, &holomem.Fact{Content: "feedback target", CreatedAt: past})
	got, err := s.RecordFeedback(ctx, f.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := holomem.ApplyFeedback(holomem.DefaultTrust, true); got.Trust != want || got.HelpfulCount != 1 {
		t.Errorf("helpful: trust %v count %d, want %v 1", got.Trust, got.HelpfulCount, want)
	}
	got, err = s.RecordFeedback(ctx, f.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	want := holomem.ApplyFeedback(holomem.ApplyFeedback(holomem.DefaultTrust, true), false)
	if got.Trust != want || got.UnhelpfulCount != 1 || got.HelpfulCount != 1 {
		t.Errorf("unhelpful: %+v, want trust %v", got, want)
	}
	if !got.UpdatedAt.Equal(past) {
		t.Errorf("feedback moved UpdatedAt to %v", got.UpdatedAt)
	}
	for range 20 {
		got, _ = s.RecordFeedback(ctx, f.ID, false)
	}
	if got.Trust != 0 {
		t.Errorf("trust after many unhelpful votes = %v, want 0", got.Trust)
	}
	_, err = s.RecordFeedback(ctx, f.ID+1, true)
	wantErr(t, "unknown id", err, holomem.ErrNotFound)
}

func testMarkRetrieved(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "one", CreatedAt: past})
	b := create(t, s, fact("two"))
	if err := s.MarkRetrieved(ctx, []int64{a.ID, b.ID, 12345}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRetrieved(ctx, []int64{a.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRetrieved(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ga, gb := find(t, s, a.ID), find(t, s, b.ID)
	if ga.RetrievalCount != 2 || gb.RetrievalCount != 1 {
		t.Errorf("retrieval counts = %d, %d; want 2, 1", ga.RetrievalCount, gb.RetrievalCount)
	}
	if !ga.UpdatedAt.Equal(past) {
		t.Errorf("MarkRetrieved moved UpdatedAt")
	}
}

func testSupersede(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	older := create(t, s, &holomem.Fact{Content: "the staging database is db1", HRR: []byte{1}})
	newer := create(t, s, &holomem.Fact{Content: "the staging database is db2", HRR: []byte{2}})
	if err := s.Supersede(ctx, older.ID, newer.ID); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, older.ID); got.SupersededBy != newer.ID {
		t.Errorf("SupersededBy = %d, want %d", got.SupersededBy, newer.ID)
	}
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSupersedes}})
	if err != nil || len(es) != 1 || es[0].From != newer.ID || es[0].To != older.ID {
		t.Fatalf("supersedes edges = %v, %v; want %d -> %d", es, err, newer.ID, older.ID)
	}
	if ms := search(t, s, "", "staging database", 10); !slices.Equal(matchIDs(ms), []int64{newer.ID}) {
		t.Errorf("SearchText = %v, want only the newer fact", ms)
	}
	var scanned []int64
	s.ScanHRR(ctx, "", false, func(id int64, _ []byte) error { scanned = append(scanned, id); return nil })
	if !slices.Equal(scanned, []int64{newer.ID}) {
		t.Errorf("ScanHRR = %v, want only the newer fact", scanned)
	}
	scanned = nil
	s.ScanHRR(ctx, "", true, func(id int64, _ []byte) error { scanned = append(scanned, id); return nil })
	if !slices.Equal(scanned, []int64{older.ID, newer.ID}) {
		t.Errorf("ScanHRR(includeSuperseded) = %v", scanned)
	}
	// Superseding twice is idempotent.
	if err := s.Supersede(ctx, older.ID, newer.ID); err != nil {
		t.Errorf("second Supersede: %v", err)
	}
	// Forgetting the newer fact brings the older one back.
	if err := s.DeleteFact(ctx, newer.ID); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, older.ID); got.SupersededBy != 0 {
		t.Errorf("SupersededBy = %d after the newer fact was deleted, want 0", got.SupersededBy)
	}
	if ms := search(t, s, "", "staging database", 10); !slices.Equal(matchIDs(ms), []int64{older.ID}) {
		t.Errorf("SearchText after the newer fact was deleted = %v, want [%d]", ms, older.ID)
	}
}

func testSupersedeErrors(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("a"))
	b := create(t, s, fact("b"))
	other := create(t, s, &holomem.Fact{Content: "c", Namespace: "other"})
	wantErr(t, "same id", s.Supersede(ctx, a.ID, a.ID), holomem.ErrInvalid)
	wantErr(t, "unknown older", s.Supersede(ctx, 9999, a.ID), holomem.ErrNotFound)
	wantErr(t, "unknown newer", s.Supersede(ctx, a.ID, 9999), holomem.ErrNotFound)
	wantErr(t, "across namespaces", s.Supersede(ctx, a.ID, other.ID), holomem.ErrInvalid)
	if err := s.Supersede(ctx, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "cycle", s.Supersede(ctx, b.ID, a.ID), holomem.ErrInvalid)
}
