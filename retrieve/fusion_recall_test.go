package retrieve_test

import (
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestRecall_Heading: a fact titled with the query's word outranks a
// shorter one that mentions the word once in passing.
func TestRecall_Heading(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{DisableHRR: true})
	titled := remember(t, m, "Kestrel\nA small bird of prey that hovers over fields and verges, watching for voles, and nests in old crow nests, cliffs and church towers.")
	remember(t, m, "On the walk we saw a kestrel and two crows.")
	res, err := m.Recall(t.Context(), holomem.Query{Text: "kestrel", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].Fact.ID != titled.ID {
		t.Fatalf("hits = %v, want the titled fact #%d first", ids(res.Hits), titled.ID)
	}
}

// TestRecall_DocumentLength: among documents, the long one that mentions
// the query's words among many others ranks below a short one all about
// them; among memory facts (notes, chat turns) length counts little.
func TestRecall_DocumentLength(t *testing.T) {
	long := "The harbour town has a fish market on Fridays and a lighthouse. " + strings.Repeat("Its history includes shipbuilding, rope making, sail lofts, chandlers, net menders and a lifeboat station. ", 8) + "The fish market sells fish."
	short := "The fish market opens at dawn."
	for _, tc := range []struct {
		category  string
		shortWins bool
	}{{"doc", true}, {"", false}} {
		t.Run("category="+tc.category, func(t *testing.T) {
			m, _ := testutil.MustOpenMemory(t, retrieve.Options{DisableHRR: true})
			l := remember(t, m, long, func(f *holomem.Fact) { f.Category = tc.category })
			s := remember(t, m, short, func(f *holomem.Fact) { f.Category = tc.category })
			for i := range 6 { // other facts, so the average length is not the two's
				remember(t, m, strings.Repeat("Unrelated note about gardening and compost. ", i+1), func(f *holomem.Fact) { f.Category = tc.category })
			}
			res, err := m.Recall(t.Context(), holomem.Query{Text: "fish market", NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) < 2 {
				t.Fatalf("hits = %v", ids(res.Hits))
			}
			want := l.ID
			if tc.shortWins {
				want = s.ID
			}
			if res.Hits[0].Fact.ID != want {
				t.Errorf("hits = %v (fts %v, %v), want #%d first", ids(res.Hits), res.Hits[0].Scores[holomem.ChannelFTS], res.Hits[1].Scores[holomem.ChannelFTS], want)
			}
		})
	}
}
