package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/web"
)

// /api/recall answers with snippets unless full, and within a budget when
// one is given, saying how to page.
func TestRecall_snippetsAndBudget(t *testing.T) {
	e := newEnv(t, web.Options{})
	for i := range 12 {
		e.remember(fmt.Sprintf("Deploy note %d: ", i) + strings.Repeat(fmt.Sprintf("filler text number %d about other things. ", i), 400) + "The green deploy uses blue slots.")
	}
	res := ok[holomem.Result](t, e.do("GET", "/api/recall?q=green+deploy+slots", nil), 200)
	if len(res.Hits) != 10 {
		t.Fatalf("%d hits", len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.Fact.Content != "" || !strings.Contains(h.Snippet, "green deploy uses blue slots") || len(h.Matches) == 0 || h.Passage == nil {
			t.Fatalf("hit without full: content %d bytes, snippet %q, matches %v, passage %v", len(h.Fact.Content), h.Snippet, h.Matches, h.Passage)
		}
	}
	full := ok[holomem.Result](t, e.do("GET", "/api/recall?q=green+deploy+slots&full=1&limit=2", nil), 200)
	if len(full.Hits) != 2 || len(full.Hits[0].Fact.Content) < 10000 {
		t.Fatalf("full: %d hits", len(full.Hits))
	}
	r := e.do("POST", "/api/recall", map[string]any{"query": "green deploy slots", "budget": 600})
	small := ok[holomem.Result](t, r, 200)
	if n := holomem.EstimateTokens(string(r.body)); n > 600 {
		t.Errorf("body is %d tokens over a budget of 600", n)
	}
	if len(small.Hits) == 0 || small.Omitted == 0 || small.NextOffset != len(small.Hits) || small.Omitted+len(small.Hits) != 10 {
		t.Fatalf("budget 600: %d hits, omitted %d, next %d", len(small.Hits), small.Omitted, small.NextOffset)
	}
	next := ok[holomem.Result](t, e.do("GET", fmt.Sprintf("/api/recall?q=green+deploy+slots&offset=%d", small.NextOffset), nil), 200)
	if len(next.Hits) == 0 || next.Hits[0].Fact.ID != res.Hits[small.NextOffset].Fact.ID {
		t.Errorf("offset %d starts at #%d, want #%d", small.NextOffset, next.Hits[0].Fact.ID, res.Hits[small.NextOffset].Fact.ID)
	}
}

// probe and reason answer with snippets too; ?full=1 gives the content.
func TestProbe_snippets(t *testing.T) {
	e := newEnv(t, web.Options{})
	e.remember("Alice prefers green tea in the morning")
	lean := ok[web.HitList](t, e.do("GET", "/api/probe?entity=Alice", nil), 200)
	full := ok[web.HitList](t, e.do("GET", "/api/probe?entity=Alice&full=1", nil), 200)
	if len(lean.Hits) != 1 || lean.Hits[0].Fact.Content != "" || !strings.Contains(lean.Hits[0].Snippet, "Alice") {
		t.Errorf("probe: %+v", lean.Hits)
	}
	if len(full.Hits) != 1 || full.Hits[0].Fact.Content != "Alice prefers green tea in the morning" {
		t.Errorf("probe full: %+v", full.Hits)
	}
}
