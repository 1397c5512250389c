package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

// Run runs the whole conformance suite. open must return a new, empty
// store for each call; Run closes it when the subtest ends.
func Run(t *testing.T, open func(t *testing.T) holomem.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s holomem.Store)
	}{
		{"CreateFact/OK", testCreateFactOK},
		{"CreateFact/KeepsTimestamps", testCreateFactKeepsTimestamps},
		{"CreateFact/Duplicate", testCreateFactDuplicate},
		{"CreateFact/ExternalKey", testCreateFactExternalKey},
		{"CreateFact/ErrInvalid", testCreateFactErrInvalid},
		{"CreateFact/LargeContent", testCreateFactLargeContent},
		{"CreateFacts/Batch", testCreateFactsBatch},
		{"CreateFacts/AllOrNothing", testCreateFactsAllOrNothing},
		{"FindFactByID/ErrNotFound", testFindFactByIDErrNotFound},
		{"FindFacts/Filters", testFindFactsFilters},
		{"FindFacts/Paging", testFindFactsPaging},
		{"UpdateFact/Content", testUpdateFactContent},
		{"UpdateFact/Metadata", testUpdateFactMetadata},
		{"UpdateFact/ErrConflict", testUpdateFactErrConflict},
		{"UpdateFact/Errors", testUpdateFactErrors},
		{"DeleteFact", testDeleteFact},
		{"RecordFeedback", testRecordFeedback},
		{"MarkRetrieved", testMarkRetrieved},
		{"Supersede", testSupersede},
		{"Supersede/Errors", testSupersedeErrors},
		{"SearchText/Ranking", testSearchTextRanking},
		{"SearchText/Relaxed", testSearchTextRelaxed},
		{"SearchText/Inflection", testSearchTextInflection},
		{"SearchText/Namespace", testSearchTextNamespace},
		{"SearchText/Tags", testSearchTextTags},
		{"SearchText/OperatorCharacters", testSearchTextOperators},
		{"SearchText/Errors", testSearchTextErrors},
		{"SearchText/WithSuperseded", testSearchTextWithSuperseded},
		{"Entities/Resolve", testEntitiesResolve},
		{"Entities/Alias", testEntitiesAlias},
		{"Entities/WildcardsAreLiteral", testEntitiesWildcards},
		{"Entities/List", testEntitiesList},
		{"Embeddings", testEmbeddings},
		{"Embeddings/Errors", testEmbeddingsErrors},
		{"ScanHRR", testScanHRR},
		{"Edges/Create", testEdgesCreate},
		{"Edges/Errors", testEdgesErrors},
		{"Edges/FindAndDelete", testEdgesFindAndDelete},
		{"Stats", testStats},
		{"Stats/EdgeActivity", testStatsEdgeActivity},
		{"Meta", testMeta},
		{"Injections", testInjections},
		{"Concurrent", testConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s)
		})
	}
}

// create stores a fact and fails the test on error.
func create(t *testing.T, s holomem.Store, f *holomem.Fact) *holomem.Fact {
	t.Helper()
	created, err := s.CreateFact(t.Context(), f)
	if err != nil {
		t.Fatalf("CreateFact(%q): %v", f.Content, err)
	}
	if !created {
		t.Fatalf("CreateFact(%q): created = false, want true", f.Content)
	}
	return f
}

func fact(content string) *holomem.Fact { return &holomem.Fact{Content: content} }

func find(t *testing.T, s holomem.Store, id int64) *holomem.Fact {
	t.Helper()
	f, err := s.FindFactByID(t.Context(), id)
	if err != nil {
		t.Fatalf("FindFactByID(%d): %v", id, err)
	}
	return f
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", what, err, want)
	}
}

func ptr[T any](v T) *T { return &v }

func ids(fs []*holomem.Fact) []int64 {
	out := make([]int64, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func matchIDs(ms []holomem.TextMatch) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func search(t *testing.T, s holomem.Store, ns, q string, limit int) []holomem.TextMatch {
	t.Helper()
	ms, err := s.SearchText(t.Context(), ns, q, limit)
	if err != nil {
		t.Fatalf("SearchText(%q): %v", q, err)
	}
	return ms
}

func testCreateFactOK(t *testing.T, s holomem.Store) {
	before := time.Now().Add(-time.Second)
	f := create(t, s, &holomem.Fact{
		Content:     "Alice prefers tabs over spaces",
		Tags:        []string{" #Style ", "style", "Editor"},
		Source:      " agent ",
		ExternalKey: " note:1 ",
		Anchor:      &holomem.Anchor{Path: "docs/style.md", Hash: "abc"},
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
		Anchor:   &holomem.Anchor{Path: "main.go", Hash: "h"},
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

func testSearchTextRanking(t *testing.T, s holomem.Store) {
	a := create(t, s, fact("nginx serves the static files for the web frontend"))
	b := create(t, s, fact("nginx nginx nginx: the reverse proxy is nginx"))
	create(t, s, fact("postgres stores the orders"))
	ms := search(t, s, "", "nginx", 10)
	if got := matchIDs(ms); !slices.Equal(got, []int64{b.ID, a.ID}) {
		t.Fatalf("SearchText(nginx) = %v, want [%d %d]", ms, b.ID, a.ID)
	}
	if ms[0].Score != 1 || ms[1].Score <= 0 || ms[1].Score > 1 {
		t.Errorf("scores = %v, want the best at 1 and the rest in (0, 1]", ms)
	}
	// Case and punctuation do not matter.
	if got := matchIDs(search(t, s, "", "NGINX!!", 10)); !slices.Equal(got, []int64{b.ID, a.ID}) {
		t.Errorf("SearchText(NGINX!!) = %v", got)
	}
	// The same query gives the same answer.
	again := search(t, s, "", "nginx", 10)
	if !slices.Equal(again, ms) {
		t.Errorf("repeated search = %v, want %v", again, ms)
	}
	if got := search(t, s, "", "nginx", 1); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("limit 1 = %v", got)
	}
	// Ties are broken by id.
	x := create(t, s, fact("kafka topic"))
	y := create(t, s, fact("topic kafka"))
	if got := matchIDs(search(t, s, "", "kafka topic", 10)); !slices.Equal(got, []int64{x.ID, y.ID}) {
		t.Errorf("tied hits = %v, want id order [%d %d]", got, x.ID, y.ID)
	}
}

func testSearchTextRelaxed(t *testing.T, s holomem.Store) {
	both := create(t, s, fact("redis cache eviction policy"))
	one := create(t, s, fact("redis is single threaded"))
	other := create(t, s, fact("eviction notice for the tenant"))
	create(t, s, fact("nothing relevant here"))
	ms := search(t, s, "", "redis eviction", 10)
	if len(ms) != 3 || ms[0].ID != both.ID || ms[0].Score != 1 {
		t.Fatalf("SearchText = %v, want %d first with score 1, then the any-term hits", ms, both.ID)
	}
	rest := matchIDs(ms[1:])
	slices.Sort(rest)
	if !slices.Equal(rest, []int64{one.ID, other.ID}) {
		t.Errorf("relaxed hits = %v, want %d and %d", rest, one.ID, other.ID)
	}
	for _, m := range ms[1:] {
		if m.Score <= 0 || m.Score > 0.5 {
			t.Errorf("relaxed hit %d scored %v, want (0, 0.5]", m.ID, m.Score)
		}
	}
	// When all terms already fill the limit, nothing is relaxed.
	if got := search(t, s, "", "redis eviction", 1); len(got) != 1 || got[0].ID != both.ID {
		t.Errorf("limit 1 = %v, want [%d]", got, both.ID)
	}
	// Only any-term hits: the best scores 0.5.
	ms = search(t, s, "", "redis tenant", 10)
	if len(ms) == 0 || ms[0].Score != 0.5 {
		t.Errorf("only relaxed hits = %v, want the best at 0.5", ms)
	}
}

func testSearchTextInflection(t *testing.T, s holomem.Store) {
	ru := create(t, s, fact("Столица России — Москва"))
	en := create(t, s, fact("We deployed the service yesterday"))
	yo := create(t, s, fact("Ёжик в тумане"))
	tests := []struct {
		q    string
		want int64
	}{
		{"россия", ru.ID},
		{"России", ru.ID},
		{"столицу", ru.ID},
		{"deploying", en.ID},
		{"deploy", en.ID},
		{"deploys", en.ID},
		{"services", en.ID},
		{"ежик", yo.ID},
		{"ёжик", yo.ID},
	}
	for _, tt := range tests {
		if got := matchIDs(search(t, s, "", tt.q, 10)); !slices.Equal(got, []int64{tt.want}) {
			t.Errorf("SearchText(%q) = %v, want [%d]", tt.q, got, tt.want)
		}
	}
}

func testSearchTextNamespace(t *testing.T, s holomem.Store) {
	a := create(t, s, fact("shared word apple"))
	b := create(t, s, &holomem.Fact{Content: "shared word apple", Namespace: "team"})
	if got := matchIDs(search(t, s, "", "apple", 10)); !slices.Equal(got, []int64{a.ID}) {
		t.Errorf("default namespace = %v, want [%d]", got, a.ID)
	}
	if got := matchIDs(search(t, s, "team", "apple", 10)); !slices.Equal(got, []int64{b.ID}) {
		t.Errorf("team namespace = %v, want [%d]", got, b.ID)
	}
	if got := search(t, s, "nobody", "apple", 10); len(got) != 0 {
		t.Errorf("unknown namespace = %v", got)
	}
	// Namespaces are data too: quotes, braces, spaces, Unicode.
	odd := `команда "x" 'y' {z} : AND *`
	c := create(t, s, &holomem.Fact{Content: "shared word apple", Namespace: odd})
	if got := matchIDs(search(t, s, odd, "apple", 10)); !slices.Equal(got, []int64{c.ID}) {
		t.Errorf("odd namespace = %v, want [%d]", got, c.ID)
	}
	if got := matchIDs(search(t, s, "", "apple", 10)); !slices.Equal(got, []int64{a.ID}) {
		t.Errorf("default namespace after the odd one = %v, want [%d]", got, a.ID)
	}
}

func testSearchTextTags(t *testing.T, s holomem.Store) {
	f := create(t, s, &holomem.Fact{Content: "the deploy checklist", Tags: []string{"kubernetes"}})
	if got := matchIDs(search(t, s, "", "kubernetes", 10)); !slices.Equal(got, []int64{f.ID}) {
		t.Errorf("search by tag = %v, want [%d]", got, f.ID)
	}
}

func testSearchTextOperators(t *testing.T, s holomem.Store) {
	cpp := create(t, s, fact("C++ templates and foo bars"))
	rf := create(t, s, fact("never run rm -rf / on the server"))
	near := create(t, s, fact("NEAR the title: x marks AND the spot"))
	queries := []string{
		`C++ (foo`, `"`, `""`, `-rf`, `NEAR(`, `NEAR(a b, 2)`, `title:x`, `AND`, `OR`, `NOT`, `*`, `^foo`,
		`foo*`, `'`, `\`, `(`, `)`, `{content}: foo`, `content:foo`, `a AND OR b`, `"unbalanced`,
		`%`, `_`, `'; DROP TABLE facts; --`, "\x00", "tab\tand\nnewline", `+`, `:`, `-`, `NEAR`,
	}
	for _, q := range queries {
		if _, err := s.SearchText(t.Context(), "", q, 10); err != nil {
			t.Errorf("SearchText(%q): %v", q, err)
		}
	}
	tests := []struct {
		q    string
		want int64
	}{
		{`C++ (foo`, cpp.ID},
		{`-rf`, rf.ID},
		{`rm -rf`, rf.ID},
		{`title:x`, near.ID},
		{`NEAR(`, near.ID},
		{`spot AND`, near.ID},
	}
	for _, tt := range tests {
		ms := search(t, s, "", tt.q, 10)
		if len(ms) == 0 || ms[0].ID != tt.want {
			t.Errorf("SearchText(%q) = %v, want %d first", tt.q, ms, tt.want)
		}
	}
	// The store still works after hostile queries.
	if _, n, err := s.FindFacts(t.Context(), holomem.FactFilter{}); err != nil || n != 3 {
		t.Errorf("FindFacts after hostile queries = %d, %v", n, err)
	}
	// Queries without words find nothing and are not errors.
	for _, q := range []string{"", "   ", `"`, `*`, `()`, "\x00"} {
		if ms := search(t, s, "", q, 10); len(ms) != 0 {
			t.Errorf("SearchText(%q) = %v, want none", q, ms)
		}
	}
}

func testSearchTextErrors(t *testing.T, s holomem.Store) {
	_, err := s.SearchText(t.Context(), "", "bad \xff", 10)
	wantErr(t, "invalid UTF-8", err, holomem.ErrInvalid)
	_, err = s.SearchText(t.Context(), "", strings.Repeat("word ", holomem.MaxQueryBytes), 10)
	wantErr(t, "huge query", err, holomem.ErrInvalid)
}

func testSearchTextWithSuperseded(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	older := create(t, s, fact("the build server is jenkins"))
	newer := create(t, s, fact("the build server is buildkite"))
	if err := s.Supersede(ctx, older.ID, newer.ID); err != nil {
		t.Fatal(err)
	}
	if got := matchIDs(search(t, s, "", "build server", 10)); !slices.Equal(got, []int64{newer.ID}) {
		t.Errorf("default search = %v, want [%d]", got, newer.ID)
	}
	ms, err := s.SearchText(ctx, "", "build server", 10, holomem.WithSuperseded())
	if err != nil {
		t.Fatal(err)
	}
	got := matchIDs(ms)
	slices.Sort(got)
	if !slices.Equal(got, []int64{older.ID, newer.ID}) {
		t.Errorf("WithSuperseded = %v, want both", ms)
	}
	if ms, _ := s.SearchText(ctx, "", "jenkins", 10, holomem.WithSuperseded()); len(ms) != 1 || ms[0].ID != older.ID || ms[0].Score != 1 {
		t.Errorf("WithSuperseded(jenkins) = %v, want [%d] at 1", ms, older.ID)
	}
}

func testEntitiesResolve(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("Grace Hopper wrote the first compiler"))
	b := create(t, s, fact("Hopper also popularised the word bug"))
	create(t, s, &holomem.Fact{Content: "Hopper in another namespace", Namespace: "other"})
	e, err := s.FindEntity(ctx, "", "hopper")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "Hopper" || e.FactCount < 1 || e.Namespace != holomem.DefaultNamespace {
		t.Errorf("FindEntity(hopper) = %+v", e)
	}
	ids, err := s.FactIDsByEntity(ctx, "", "HOPPER")
	if err != nil || len(ids) == 0 || !slices.IsSorted(ids) || !slices.Contains(ids, b.ID) {
		t.Errorf("FactIDsByEntity(HOPPER) = %v, %v; want sorted ids including %d", ids, err, b.ID)
	}
	for _, id := range ids {
		if id != a.ID && id != b.ID {
			t.Errorf("FactIDsByEntity returned %d from another namespace", id)
		}
	}
	_, err = s.FindEntity(ctx, "", "Nobody")
	wantErr(t, "unknown entity", err, holomem.ErrNotFound)
	_, err = s.FindEntity(ctx, "", "")
	wantErr(t, "empty name", err, holomem.ErrNotFound)
	if ids, err := s.FactIDsByEntity(ctx, "", "Nobody"); err != nil || len(ids) != 0 {
		t.Errorf("FactIDsByEntity(Nobody) = %v, %v; want none", ids, err)
	}
	m, err := s.EntitiesOf(ctx, []int64{a.ID, b.ID, 9999})
	if err != nil || !slices.Equal(m[a.ID], a.Entities) || !slices.Equal(m[b.ID], b.Entities) || len(m[9999]) != 0 {
		t.Errorf("EntitiesOf = %v, %v; want %q and %q", m, err, a.Entities, b.Entities)
	}
}

func testEntitiesAlias(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("PostgreSQL aka Postgres is our main database"))
	e, err := s.FindEntity(ctx, "", "postgres")
	if err != nil {
		t.Fatalf("FindEntity by alias: %v (fact entities %q)", err, f.Entities)
	}
	if e.Name != "PostgreSQL" || !slices.Contains(e.Aliases, "Postgres") {
		t.Errorf("FindEntity(postgres) = %+v, want PostgreSQL with alias Postgres", e)
	}
	ids, err := s.FactIDsByEntity(ctx, "", "POSTGRES")
	if err != nil || !slices.Equal(ids, []int64{f.ID}) {
		t.Errorf("FactIDsByEntity by alias = %v, %v", ids, err)
	}
	// A later fact naming the alias links to the same entity.
	g := create(t, s, fact("Postgres needs a vacuum"))
	ids, _ = s.FactIDsByEntity(ctx, "", "PostgreSQL")
	if !slices.Equal(ids, []int64{f.ID, g.ID}) {
		t.Errorf("FactIDsByEntity(PostgreSQL) = %v, want [%d %d]", ids, f.ID, g.ID)
	}
}

func testEntitiesWildcards(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("Set max_conn in Config_File for Mallory"))
	if len(f.Entities) == 0 {
		t.Fatalf("no entities in %q", f.Content)
	}
	for _, q := range []string{"%", "_", "%%", "M%", "Mallor_", "max%", "max_con_", "*", "?"} {
		if _, err := s.FindEntity(ctx, "", q); !errors.Is(err, holomem.ErrNotFound) {
			t.Errorf("FindEntity(%q) = %v, want ErrNotFound (wildcards are literal)", q, err)
		}
		if ids, _ := s.FactIDsByEntity(ctx, "", q); len(ids) != 0 {
			t.Errorf("FactIDsByEntity(%q) = %v, want none", q, ids)
		}
	}
	for _, name := range f.Entities {
		if _, err := s.FindEntity(ctx, "", name); err != nil {
			t.Errorf("FindEntity(%q): %v", name, err)
		}
	}
}

func testEntitiesList(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	create(t, s, fact("Zoe met Yann"))
	create(t, s, fact("Yann met Xavier"))
	create(t, s, fact("Yann and Xavier left"))
	es, err := s.FindEntities(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, e := range es {
		names = append(names, e.Name)
		if i > 0 && (es[i-1].FactCount < e.FactCount || es[i-1].FactCount == e.FactCount && es[i-1].Name > e.Name) {
			t.Errorf("FindEntities not ordered by count desc, name: %v", es)
		}
	}
	if len(es) < 3 || es[0].Name != "Yann" || es[0].FactCount != 3 {
		t.Errorf("FindEntities = %q, want Yann (3 facts) first", names)
	}
	if es, _ := s.FindEntities(ctx, "", 1); len(es) != 1 {
		t.Errorf("limit 1 gave %d entities", len(es))
	}
	if es, _ := s.FindEntities(ctx, "other", 0); len(es) != 0 {
		t.Errorf("other namespace has entities %v", es)
	}
}

func testEmbeddings(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("one"))
	b := create(t, s, fact("two"))
	c := create(t, s, &holomem.Fact{Content: "three", Namespace: "team"})
	d := create(t, s, &holomem.Fact{Content: "four", ModelID: "m1", Embedding: []float32{0, 0, 4}})
	if err := s.SetEmbeddings(ctx, "m1", map[int64][]float32{a.ID: {1, 0, 0}, c.ID: {0, 0, 1}, 9999: {1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbeddings(ctx, "m2", map[int64][]float32{b.ID: {0.5, 0.5}}); err != nil {
		t.Fatal(err)
	}
	scan := func(ns, model string) map[int64][]float32 {
		out := map[int64][]float32{}
		var last int64
		err := s.ScanEmbeddings(ctx, ns, model, func(id int64, v []float32) error {
			if id <= last {
				t.Errorf("ScanEmbeddings not in id order: %d after %d", id, last)
			}
			last = id
			out[id] = slices.Clone(v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := scan("", "m1"); len(got) != 3 || !slices.Equal(got[a.ID], []float32{1, 0, 0}) || !slices.Equal(got[c.ID], []float32{0, 0, 1}) || !slices.Equal(got[d.ID], []float32{0, 0, 4}) {
		t.Errorf("m1 in all namespaces = %v", got)
	}
	if got := scan(holomem.DefaultNamespace, "m1"); len(got) != 2 || got[c.ID] != nil {
		t.Errorf("m1 in default = %v", got)
	}
	if got := scan("", "m2"); len(got) != 1 || !slices.Equal(got[b.ID], []float32{0.5, 0.5}) {
		t.Errorf("m2 = %v", got)
	}
	if got := scan("", "m3"); len(got) != 0 {
		t.Errorf("unknown model = %v", got)
	}
	// Re-embedding with another model moves the fact to that model.
	if err := s.SetEmbeddings(ctx, "m2", map[int64][]float32{a.ID: {0.1, 0.2}}); err != nil {
		t.Fatal(err)
	}
	if got := scan("", "m1"); got[a.ID] != nil {
		t.Errorf("old model's vector still returned: %v", got)
	}
	if got := scan("", "m2"); !slices.Equal(got[a.ID], []float32{0.1, 0.2}) {
		t.Errorf("new model's vector = %v", got)
	}
	// An error from fn stops the scan.
	stop := errors.New("stop")
	n := 0
	err := s.ScanEmbeddings(ctx, "", "m2", func(int64, []float32) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ScanEmbeddings with failing fn = %v after %d calls", err, n)
	}
	st, err := s.Stats(ctx, "")
	if err != nil || st.Models["m1"] != 2 || st.Models["m2"] != 2 {
		t.Errorf("Stats.Models = %v, %v", st.Models, err)
	}
}

func testEmbeddingsErrors(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("x"))
	nan := float32(0)
	nan = nan / nan
	for name, tc := range map[string]struct {
		model string
		v     []float32
	}{
		"EmptyModel":  {"", []float32{1}},
		"EmptyVector": {"m", nil},
		"NaN":         {"m", []float32{nan}},
	} {
		err := s.SetEmbeddings(ctx, tc.model, map[int64][]float32{f.ID: tc.v})
		wantErr(t, name, err, holomem.ErrInvalid)
	}
	if err := s.SetEmbeddings(ctx, "m", nil); err != nil {
		t.Errorf("SetEmbeddings(nil) = %v", err)
	}
}

func testScanHRR(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "a", HRR: []byte{1, 2}})
	create(t, s, fact("no vector"))
	c := create(t, s, &holomem.Fact{Content: "c", HRR: []byte{3}, Namespace: "team"})
	d := create(t, s, &holomem.Fact{Content: "d", HRR: []byte{4}})
	type item struct {
		id int64
		v  string
	}
	scan := func(ns string) []item {
		var out []item
		if err := s.ScanHRR(ctx, ns, false, func(id int64, v []byte) error {
			out = append(out, item{id, string(v)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := scan(holomem.DefaultNamespace), []item{{a.ID, "\x01\x02"}, {d.ID, "\x04"}}; !slices.Equal(got, want) {
		t.Errorf("ScanHRR(default) = %v, want %v", got, want)
	}
	if got, want := scan(""), []item{{a.ID, "\x01\x02"}, {c.ID, "\x03"}, {d.ID, "\x04"}}; !slices.Equal(got, want) {
		t.Errorf("ScanHRR(all) = %v, want %v", got, want)
	}
	if _, err := s.UpdateFact(ctx, a.ID, holomem.FactUpdate{HRR: []byte{5}}); err != nil {
		t.Fatal(err)
	}
	if got := scan(holomem.DefaultNamespace); got[0].v != "\x05" {
		t.Errorf("HRR after UpdateFact = %v", got)
	}
	st, _ := s.Stats(ctx, "")
	if st.WithoutHRR != 1 {
		t.Errorf("WithoutHRR = %d, want 1", st.WithoutHRR)
	}
}

func testEdgesCreate(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b := create(t, s, fact("issue 1")), create(t, s, fact("fix for issue 1"))
	e := &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 0.7, Origin: holomem.OriginImport}
	created, err := s.CreateEdge(ctx, e)
	if err != nil || !created {
		t.Fatalf("CreateEdge = %v, %v", created, err)
	}
	if e.CreatedAt.IsZero() {
		t.Errorf("CreatedAt not filled")
	}
	again := &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 0.9, Origin: holomem.OriginAuto}
	created, err = s.CreateEdge(ctx, again)
	if err != nil || created {
		t.Fatalf("duplicate CreateEdge = %v, %v; want false, nil", created, err)
	}
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{FactID: a.ID})
	if err != nil || len(es) != 1 || es[0].Weight != 0.9 || es[0].Origin != holomem.OriginImport || !es[0].CreatedAt.Equal(e.CreatedAt) {
		t.Fatalf("after duplicate: %v, %v; want weight 0.9, first origin and time", es, err)
	}
	// The same pair with another kind, and the reverse direction, are other edges.
	n, err := s.CreateEdges(ctx, []*holomem.Edge{
		{From: a.ID, To: b.ID, Kind: holomem.EdgeTemporal, Weight: 1},
		{From: b.ID, To: a.ID, Kind: holomem.EdgeCausal, Weight: 1},
		{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 0.5},
		{From: a.ID, To: b.ID, Kind: "my-kind_2", Weight: 0},
	})
	if err != nil || n != 3 {
		t.Fatalf("CreateEdges = %d, %v; want 3 new", n, err)
	}
	es, _ = s.FindEdges(ctx, holomem.EdgeFilter{})
	if len(es) != 4 {
		t.Errorf("edges = %v, want 4", es)
	}
	for i := 1; i < len(es); i++ {
		p, q := es[i-1], es[i]
		if p.From > q.From || p.From == q.From && (p.To > q.To || p.To == q.To && p.Kind >= q.Kind) {
			t.Errorf("FindEdges not ordered by (from, to, kind): %v", es)
		}
	}
	for _, e := range es {
		if e.Origin == "" {
			t.Errorf("edge %v has no origin", e)
		}
	}
}

func testEdgesErrors(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b := create(t, s, fact("a")), create(t, s, fact("b"))
	other := create(t, s, &holomem.Fact{Content: "c", Namespace: "other"})
	tests := []struct {
		name string
		e    *holomem.Edge
		want error
	}{
		{"SelfLoop", &holomem.Edge{From: a.ID, To: a.ID, Kind: holomem.EdgeCausal}, holomem.ErrInvalid},
		{"UnknownFrom", &holomem.Edge{From: 9999, To: a.ID, Kind: holomem.EdgeCausal}, holomem.ErrNotFound},
		{"UnknownTo", &holomem.Edge{From: a.ID, To: 9999, Kind: holomem.EdgeCausal}, holomem.ErrNotFound},
		{"BadKind", &holomem.Edge{From: a.ID, To: b.ID, Kind: "Bad Kind"}, holomem.ErrInvalid},
		{"EmptyKind", &holomem.Edge{From: a.ID, To: b.ID}, holomem.ErrInvalid},
		{"NegativeWeight", &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: -1}, holomem.ErrInvalid},
		{"ZeroIDs", &holomem.Edge{Kind: holomem.EdgeCausal}, holomem.ErrInvalid},
		{"AcrossNamespaces", &holomem.Edge{From: a.ID, To: other.ID, Kind: holomem.EdgeCausal}, holomem.ErrInvalid},
		{"Nil", nil, holomem.ErrInvalid},
	}
	for _, tt := range tests {
		_, err := s.CreateEdge(ctx, tt.e)
		wantErr(t, tt.name, err, tt.want)
	}
	// A failing edge rolls the whole batch back.
	_, err := s.CreateEdges(ctx, []*holomem.Edge{{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal}, {From: a.ID, To: 9999, Kind: holomem.EdgeCausal}})
	wantErr(t, "batch with an unknown fact", err, holomem.ErrNotFound)
	if es, _ := s.FindEdges(ctx, holomem.EdgeFilter{}); len(es) != 0 {
		t.Errorf("failed batch left edges %v", es)
	}
	wantErr(t, "DeleteEdge unknown", s.DeleteEdge(ctx, a.ID, b.ID, holomem.EdgeCausal), holomem.ErrNotFound)
}

func testEdgesFindAndDelete(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a, b, c := create(t, s, fact("a")), create(t, s, fact("b")), create(t, s, fact("c"))
	x, y := create(t, s, &holomem.Fact{Content: "x", Namespace: "team"}), create(t, s, &holomem.Fact{Content: "y", Namespace: "team"})
	_, err := s.CreateEdges(ctx, []*holomem.Edge{
		{From: a.ID, To: b.ID, Kind: holomem.EdgeSimilar, Weight: 0.9, Origin: holomem.OriginAuto},
		{From: b.ID, To: c.ID, Kind: holomem.EdgeSimilar, Weight: 0.8, Origin: holomem.OriginAuto},
		{From: c.ID, To: a.ID, Kind: holomem.EdgeCausal, Weight: 1, Origin: holomem.OriginImport},
		{From: x.ID, To: y.ID, Kind: holomem.EdgeSimilar, Weight: 0.5, Origin: holomem.OriginAuto},
	})
	if err != nil {
		t.Fatal(err)
	}
	type pair struct{ from, to int64 }
	pairs := func(es []*holomem.Edge) []pair {
		var out []pair
		for _, e := range es {
			out = append(out, pair{e.From, e.To})
		}
		return out
	}
	tests := []struct {
		name   string
		filter holomem.EdgeFilter
		want   []pair
	}{
		{"FactID", holomem.EdgeFilter{FactID: a.ID}, []pair{{a.ID, b.ID}, {c.ID, a.ID}}},
		{"From", holomem.EdgeFilter{From: b.ID}, []pair{{b.ID, c.ID}}},
		{"To", holomem.EdgeFilter{To: a.ID}, []pair{{c.ID, a.ID}}},
		{"Kinds", holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeCausal, holomem.EdgeTemporal}}, []pair{{c.ID, a.ID}}},
		{"Origin", holomem.EdgeFilter{Origin: holomem.OriginAuto, Namespace: holomem.DefaultNamespace}, []pair{{a.ID, b.ID}, {b.ID, c.ID}}},
		{"Namespace", holomem.EdgeFilter{Namespace: "team"}, []pair{{x.ID, y.ID}}},
		{"Limit", holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Limit: 2}, []pair{{a.ID, b.ID}, {b.ID, c.ID}}},
	}
	for _, tt := range tests {
		es, err := s.FindEdges(ctx, tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if got := pairs(es); !slices.Equal(got, tt.want) {
			t.Errorf("%s: FindEdges = %v, want %v", tt.name, got, tt.want)
		}
	}
	if err := s.DeleteEdge(ctx, a.ID, b.ID, holomem.EdgeSimilar); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "delete twice", s.DeleteEdge(ctx, a.ID, b.ID, holomem.EdgeSimilar), holomem.ErrNotFound)
	for _, f := range []holomem.EdgeFilter{{}, {Limit: 1}, {Kinds: []holomem.EdgeKind{"Bad Kind"}}} {
		if n, err := s.DeleteEdges(ctx, f); !errors.Is(err, holomem.ErrInvalid) || n != 0 {
			t.Errorf("DeleteEdges(%+v) = %d, %v; want ErrInvalid", f, n, err)
		}
	}
	if es, _ := s.FindEdges(ctx, holomem.EdgeFilter{}); len(es) != 3 {
		t.Errorf("a rejected DeleteEdges changed the edges: %d left, want 3", len(es))
	}
	// Kind, origin and namespace all apply: the team's similar_to edge stays.
	n, err := s.DeleteEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginImport})
	if err != nil || n != 0 {
		t.Errorf("DeleteEdges(similar_to, import) = %d, %v; want 0", n, err)
	}
	n, err = s.DeleteEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}, Origin: holomem.OriginAuto, Namespace: holomem.DefaultNamespace})
	if err != nil || n != 1 {
		t.Errorf("DeleteEdges(similar_to, auto, default) = %d, %v; want 1", n, err)
	}
	es, _ := s.FindEdges(ctx, holomem.EdgeFilter{})
	if got := pairs(es); !slices.Equal(got, []pair{{c.ID, a.ID}, {x.ID, y.ID}}) {
		t.Errorf("left = %v", got)
	}
	if n, err = s.DeleteEdges(ctx, holomem.EdgeFilter{Namespace: "team"}); err != nil || n != 1 {
		t.Errorf("DeleteEdges(team) = %d, %v; want 1", n, err)
	}
	// A supersedes edge mirrors SupersededBy.
	if _, err := s.CreateEdge(ctx, &holomem.Edge{From: b.ID, To: a.ID, Kind: holomem.EdgeSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, a.ID); got.SupersededBy != b.ID {
		t.Errorf("supersedes edge: SupersededBy = %d, want %d", got.SupersededBy, b.ID)
	}
	if err := s.DeleteEdge(ctx, b.ID, a.ID, holomem.EdgeSupersedes); err != nil {
		t.Fatal(err)
	}
	if got := find(t, s, a.ID); got.SupersededBy != 0 {
		t.Errorf("after deleting the supersedes edge SupersededBy = %d, want 0", got.SupersededBy)
	}
	// DeleteEdges of supersedes edges unhides their facts too.
	if _, err := s.CreateEdge(ctx, &holomem.Edge{From: b.ID, To: a.ID, Kind: holomem.EdgeSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteEdges(ctx, holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSupersedes}, Namespace: holomem.DefaultNamespace}); err != nil || n != 1 {
		t.Errorf("DeleteEdges(supersedes) = %d, %v; want 1", n, err)
	}
	if got := find(t, s, a.ID); got.SupersededBy != 0 {
		t.Errorf("after DeleteEdges(supersedes) SupersededBy = %d, want 0", got.SupersededBy)
	}
}

func testStats(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "Alpha one", Category: "project", HRR: []byte{1}})
	b := create(t, s, &holomem.Fact{Content: "Beta two", HRR: []byte{1}})
	create(t, s, &holomem.Fact{Content: "Gamma three", Namespace: "team"})
	if err := s.Supersede(ctx, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Facts != 3 || st.Superseded != 1 || st.WithoutHRR != 1 || st.Entities < 3 {
		t.Errorf("Stats = %+v", st)
	}
	if st.Namespaces[holomem.DefaultNamespace] != 2 || st.Namespaces["team"] != 1 {
		t.Errorf("Namespaces = %v", st.Namespaces)
	}
	if st.Categories["project"] != 1 || st.Categories[holomem.DefaultCategory] != 2 {
		t.Errorf("Categories = %v", st.Categories)
	}
	if st.Edges[string(holomem.EdgeSupersedes)] != 1 {
		t.Errorf("Edges = %v", st.Edges)
	}
	if st.SchemaVersion <= 0 {
		t.Errorf("SchemaVersion = %d", st.SchemaVersion)
	}
	st, err = s.Stats(ctx, "team")
	if err != nil || st.Facts != 1 || st.Superseded != 0 || len(st.Edges) != 0 || st.Namespaces["team"] != 1 || len(st.Namespaces) != 1 {
		t.Errorf("Stats(team) = %+v, %v", st, err)
	}
}

func testStatsEdgeActivity(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	now := time.Now()
	var fs []*holomem.Fact
	for i := range 6 {
		fs = append(fs, create(t, s, fact(fmt.Sprintf("fact %d", i))))
	}
	day := 24 * time.Hour
	_, err := s.CreateEdges(ctx, []*holomem.Edge{
		// causal/import: last seen 10 days ago -> stalled.
		{From: fs[0].ID, To: fs[1].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport, CreatedAt: now.Add(-10 * day)},
		{From: fs[1].ID, To: fs[2].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport, CreatedAt: now.Add(-20 * day)},
		{From: fs[2].ID, To: fs[3].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport, CreatedAt: now.Add(-100 * day)},
		// causal/user: alive.
		{From: fs[3].ID, To: fs[4].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginUser, CreatedAt: now.Add(-day)},
		{From: fs[4].ID, To: fs[5].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginUser, CreatedAt: now.Add(-15 * day)},
		// temporal/auto: only old -> not stalled (it stopped long ago).
		{From: fs[0].ID, To: fs[5].ID, Kind: holomem.EdgeTemporal, Origin: holomem.OriginAuto, CreatedAt: now.Add(-200 * day)},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		kind           holomem.EdgeKind
		origin         string
		last, prev, ol int
		stalled        bool
	}
	var got []row
	for _, a := range st.EdgeActivity {
		got = append(got, row{a.Kind, a.Origin, a.Last7d, a.Prev30d, a.Older, a.Stalled})
	}
	want := []row{
		{holomem.EdgeCausal, holomem.OriginImport, 0, 2, 1, true},
		{holomem.EdgeCausal, holomem.OriginUser, 1, 1, 0, false},
		{holomem.EdgeTemporal, holomem.OriginAuto, 0, 0, 1, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("EdgeActivity = %+v, want %+v", got, want)
	}
	for _, a := range st.EdgeActivity {
		if a.Kind == holomem.EdgeCausal && a.Origin == holomem.OriginImport && a.Newest.Sub(now.Add(-10*day)).Abs() > time.Second {
			t.Errorf("Newest = %v, want 10 days ago", a.Newest)
		}
	}
}

func testMeta(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	_, err := s.Meta(ctx, "hnsw")
	wantErr(t, "unset key", err, holomem.ErrNotFound)
	if err := s.SetMeta(ctx, "hnsw", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "hnsw", "v2 with ' and \" and \x01"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "empty", ""); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Meta(ctx, "hnsw"); err != nil || v != "v2 with ' and \" and \x01" {
		t.Errorf("Meta = %q, %v", v, err)
	}
	if v, err := s.Meta(ctx, "empty"); err != nil || v != "" {
		t.Errorf("Meta(empty) = %q, %v", v, err)
	}
	wantErr(t, "empty key", s.SetMeta(ctx, "", "x"), holomem.ErrInvalid)
}

func testInjections(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	now := time.Now()
	runs := []holomem.Injection{
		{At: now.Add(-time.Minute), Outcome: "injected", Hits: 3, Took: 20 * time.Millisecond},
		{At: now.Add(-2 * time.Minute), Outcome: "empty", Took: 10 * time.Millisecond, Namespace: "team"},
		{At: now.Add(-3 * time.Minute), Outcome: "timeout", Took: 900 * time.Millisecond, Detail: strings.Repeat("é", 1000)},
		{At: now.Add(-72 * time.Hour), Outcome: "failed", Took: time.Millisecond},
	}
	for _, r := range runs {
		if err := s.LogInjection(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.InjectionStats(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 3 || st.Outcomes["injected"] != 1 || st.Outcomes["empty"] != 1 || st.Outcomes["timeout"] != 1 || st.Outcomes["failed"] != 0 {
		t.Errorf("InjectionStats = %+v", st)
	}
	if st.P50 != 20*time.Millisecond || st.P99 < st.P50 {
		t.Errorf("P50, P99 = %v, %v; want 20ms and >= P50", st.P50, st.P99)
	}
	st, err = s.InjectionStats(ctx, now)
	if err != nil || st.Total != 0 {
		t.Errorf("InjectionStats(now) = %+v, %v; want none", st, err)
	}
}

// testConcurrent writes and reads from several goroutines at once; run it
// with -race.
func testConcurrent(t *testing.T, s holomem.Store) {
	ctx := context.WithoutCancel(t.Context())
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				f := &holomem.Fact{Content: fmt.Sprintf("worker %d writes fact %d about Concurrency", w, i), HRR: []byte{byte(i)}}
				if _, err := s.CreateFact(ctx, f); err != nil {
					errs <- err
					return
				}
				if _, err := s.RecordFeedback(ctx, f.ID, i%2 == 0); err != nil {
					errs <- err
				}
				if _, err := s.SearchText(ctx, "", "concurrency fact", 5); err != nil {
					errs <- err
				}
				if _, _, err := s.FindFacts(ctx, holomem.FactFilter{Limit: 3}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, n, err := s.FindFacts(ctx, holomem.FactFilter{})
	if err != nil || n != workers*each {
		t.Errorf("total = %d, %v; want %d", n, err, workers*each)
	}
	ids, _ := s.FactIDsByEntity(ctx, "", "Concurrency")
	if len(ids) != workers*each {
		t.Errorf("FactIDsByEntity(Concurrency) = %d ids, want %d", len(ids), workers*each)
	}
}
