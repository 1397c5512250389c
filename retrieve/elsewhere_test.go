package retrieve_test

import (
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestRecall_Elsewhere: a recall that finds nothing in its namespace says
// which namespace it searched and where the words do match (a fact added
// outside a git project lives in "default", not in the project's).
func TestRecall_Elsewhere(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	for _, f := range []*holomem.Fact{
		{Content: "The staging database runs Postgres 16"},
		{Content: "Postgres backups run nightly", Namespace: "team"},
		{Content: "Unrelated note about lunch", Namespace: "project"},
	} {
		if _, err := m.Remember(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	res, err := m.Recall(ctx, holomem.Query{Text: "postgres", Namespace: "project", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Namespace != "project" {
		t.Fatalf("hits %d in namespace %q, want 0 in project", len(res.Hits), res.Namespace)
	}
	want := []holomem.NamespaceMatches{{Namespace: "default", Matches: 1}, {Namespace: "team", Matches: 1}}
	if len(res.Elsewhere) != 2 || res.Elsewhere[0] != want[0] || res.Elsewhere[1] != want[1] {
		t.Errorf("elsewhere = %+v, want %+v", res.Elsewhere, want)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), `nothing found in namespace "project"`) {
		t.Errorf("notes = %q, want one naming the namespace searched", res.Notes)
	}
	// With hits, no hint is computed.
	res, err = m.Recall(ctx, holomem.Query{Text: "postgres", NoTouch: true})
	if err != nil || len(res.Hits) == 0 || res.Elsewhere != nil || res.Namespace != holomem.DefaultNamespace {
		t.Errorf("recall in default: %d hits, elsewhere %+v, namespace %q, err %v", len(res.Hits), res.Elsewhere, res.Namespace, err)
	}
}
