package storetest

import (
	"errors"
	"testing"

	"github.com/holomem/holomem"
)

// Run runs the whole conformance suite: the required parts of
// [holomem.Store], then one subtest per optional capability of
// [holomem.Capabilities] ("Capability/NAME/..."), skipped with a message
// when the store lacks it. open must return a new, empty store for each
// call; Run closes it when the subtest ends.
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
		{"DeleteFact/IDNotReused", testDeleteFactIDNotReused},
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
		{"Entities/RecurringTerms", testEntitiesRecurringTerms},
		{"Entities/RussianCases", testEntitiesRussianCases},
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
	runCapabilities(t, open)
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
