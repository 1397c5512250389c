package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/retrieve"
)

// maxToolsListBytes bounds tools/list: every session pays it in context.
const maxToolsListBytes = 10 << 10

func TestToolsListSize(t *testing.T) {
	cs := connectInMemory(t, newServer(t, mcpserver.Options{}))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d bytes for %d tools", len(b), len(res.Tools))
	if len(b) > maxToolsListBytes {
		t.Errorf("tools/list is %d bytes; the bound is %d", len(b), maxToolsListBytes)
	}
}

// wireTokens is the budget's estimate of a whole tool result as sent.
func wireTokens(t testing.TB, res *mcp.CallToolResult) int {
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return holomem.EstimateTokens(string(b))
}

// hugeFact is about n bytes of prose that matches "deploy pipeline" here
// and there, more often the smaller i is, so that the facts rank apart.
func hugeFact(i, n int) string {
	var b strings.Builder
	for j := 0; b.Len() < n; j++ {
		if j%(10+3*i) == 7 {
			fmt.Fprintf(&b, "The deploy pipeline of service %d step %d runs the <tests> & \"checks\". ", i, j)
		} else {
			fmt.Fprintf(&b, "Paragraph %d of document %d says something about lorem ipsum dolor.\n", j, i)
		}
	}
	return b.String()
}

// A recall over a store of huge facts stays within its budget, whatever
// the limit, with or without full content, and says how to page.
func TestRecallBudget_hugeFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 2.4 MB of facts")
	}
	// A fixed clock: facts written a few ns apart would otherwise swap
	// places as their decay moves by an ulp from one call to the next.
	now := time.Now().Add(time.Hour)
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{Now: func() time.Time { return now }})
	// 12 facts of 200 KB: more than "limit 10" returns, each far over any
	// budget (50 of them took minutes under the race detector).
	facts := make([]*holomem.Fact, 12)
	size := 200 << 10
	if raceEnabled {
		size = 50 << 10 // still 6x the default budget; 200 KB each takes minutes under the race detector
	}
	for i := range facts {
		facts[i] = &holomem.Fact{Content: hugeFact(i, size), Namespace: holomem.DefaultNamespace}
	}
	if _, err := st.CreateFacts(t.Context(), facts); err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, mcpserver.New(mem, st, mcpserver.Options{Version: "test"}))
	tests := []struct {
		name   string
		args   map[string]any
		budget int
	}{
		{"limit 3", map[string]any{"limit": 3}, holomem.DefaultMCPBudget},
		{"limit 10", map[string]any{"limit": 10}, holomem.DefaultMCPBudget},
		{"limit 50 explain", map[string]any{"limit": 50, "explain": true}, holomem.DefaultMCPBudget},
		{"full", map[string]any{"limit": 10, "full": true}, holomem.DefaultMCPBudget},
		{"budget 500", map[string]any{"limit": 10, "budget": 500}, 500},
		{"budget 20000 full", map[string]any{"limit": 10, "budget": 20000, "full": true}, 20000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["query"] = "deploy pipeline checks"
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "recall", Arguments: tc.args})
			if err != nil || res.IsError {
				t.Fatalf("recall: %v %s", err, text(res))
			}
			n := wireTokens(t, res)
			var out mcpserver.RecallOutput
			if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d tokens (%d bytes of text), %d hits, %d omitted", tc.name, n, len(text(res)), len(out.Hits), out.Omitted)
			if n > tc.budget {
				t.Errorf("answer is %d tokens; the budget is %d", n, tc.budget)
			}
			if tc.args["full"] == nil && len(out.Hits) == 0 {
				t.Errorf("no hit fits a budget of %d", tc.budget)
			}
			for _, h := range out.Hits {
				if !strings.Contains(h.Snippet, "deploy pipeline") || h.Passage == nil {
					t.Errorf("hit %d: snippet %q passage %v", h.ID, h.Snippet, h.Passage)
				}
			}
			if out.Omitted > 0 && (out.NextOffset != len(out.Hits) || !strings.Contains(strings.Join(out.Notes, " "), "offset")) {
				t.Errorf("omitted %d: next_offset %d notes %q", out.Omitted, out.NextOffset, out.Notes)
			}
		})
	}
	// Paging by next_offset continues where the budget stopped.
	first := call[mcpserver.RecallOutput](t, cs, "recall", map[string]any{"query": "deploy pipeline checks", "limit": 20})
	next := call[mcpserver.RecallOutput](t, cs, "recall", map[string]any{"query": "deploy pipeline checks", "limit": 20, "offset": first.NextOffset})
	all := call[mcpserver.RecallOutput](t, cs, "recall", map[string]any{"query": "deploy pipeline checks", "limit": 40, "budget": holomem.MaxMCPBudget})
	if first.Omitted == 0 || len(next.Hits) == 0 || next.Hits[0].ID != all.Hits[len(first.Hits)].ID {
		t.Errorf("paging: first %v omitted %d, next %v, all %v", hitIDs(first.Hits), first.Omitted, hitIDs(next.Hits), hitIDs(all.Hits))
	}
	// get pages through one huge fact within the budget.
	id := all.Hits[0].ID
	off, parts := 0, 0
	var whole strings.Builder
	for {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"id": id, "offset": off, "budget": 20000}})
		if err != nil || res.IsError {
			t.Fatalf("get: %v %s", err, text(res))
		}
		if n := wireTokens(t, res); n > 20000 {
			t.Fatalf("get at %d: %d tokens", off, n)
		}
		var g mcpserver.GetOutput
		if err := json.Unmarshal([]byte(text(res)), &g); err != nil {
			t.Fatal(err)
		}
		whole.WriteString(g.Content)
		parts++
		if g.NextOffset == 0 {
			break
		}
		off = g.NextOffset
	}
	var want string
	for _, f := range facts {
		if f.ID == id {
			want = f.Content
		}
	}
	if whole.String() != want || parts < 2 {
		t.Errorf("get in %d parts gave %d bytes of %d", parts, whole.Len(), len(want))
	}
	// list is budgeted too.
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list", Arguments: map[string]any{"limit": 50}})
	if err != nil || res.IsError {
		t.Fatalf("list: %v", err)
	}
	if n := wireTokens(t, res); n > holomem.DefaultMCPBudget {
		t.Errorf("list: %d tokens", n)
	}
}
