package retrieve_test

import (
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestRecall_ExpandsIssueRefs: `#N` and issue URLs resolve inside Recall
// (every door), without a model: the named record comes first and the
// record that shares its words (the fix) is found from the number alone.
func TestRecall_ExpandsIssueRefs(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	facts := []*holomem.Fact{
		{Content: "Crash when the eviction cache is full", ExternalKey: "issue:#42", Category: "issue"},
		{Content: "Fix eviction cache overflow crash by bounding the queue", Category: "pr"},
		{Content: "Add dark mode to the settings page", ExternalKey: "issue:#43", Category: "issue"},
		{Content: "Bump the logging library", Category: "commit"},
	}
	if _, err := m.Import(ctx, facts); err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{"#42", "what happened with #42?", "see https://github.com/acme/app/issues/42"} {
		t.Run(query, func(t *testing.T) {
			if query[0] == 's' {
				// URL references resolve through the github: key.
				ghm, _ := testutil.MustOpenMemory(t, retrieve.Options{})
				fs := []*holomem.Fact{
					{Content: facts[0].Content, ExternalKey: "github:acme/app#42"},
					{Content: facts[1].Content},
				}
				if _, err := ghm.Import(ctx, fs); err != nil {
					t.Fatal(err)
				}
				res, err := ghm.Recall(ctx, holomem.Query{Text: query, NoTouch: true})
				if err != nil || len(res.Hits) < 2 || res.Hits[0].Fact.ID != fs[0].ID {
					t.Fatalf("recall %q: %v, %+v", query, err, res)
				}
				return
			}
			res, err := m.Recall(ctx, holomem.Query{Text: query, NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) < 2 || res.Hits[0].Fact.ID != facts[0].ID || res.Hits[1].Fact.ID != facts[1].ID {
				var got []string
				for _, h := range res.Hits {
					got = append(got, h.Fact.Content)
				}
				t.Fatalf("recall %q = %q, want the issue then its fix", query, got)
			}
		})
	}
	t.Run("UnknownRefIsPlainText", func(t *testing.T) {
		res, err := m.Recall(ctx, holomem.Query{Text: "#999 dark mode", NoTouch: true})
		if err != nil || len(res.Hits) == 0 || res.Hits[0].Fact.ID != facts[2].ID {
			t.Fatalf("recall: %v, %+v", err, res)
		}
	})
}
