package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/web"
)

// TestDoors_showEdges: every door that lists a fact's edges shows the same
// ones, by the one rule holomem.ShowEdge: `edges`, GET
// /api/facts/{id}/edges, MCP's get and `export` leave out the similar_to
// edges the vector index made, and `edges --kind similar_to` and
// ?kind=similar_to show them.
func TestDoors_showEdges(t *testing.T) {
	c := newCLI(t)
	for _, f := range []string{"the deploy broke on Friday", "we pinned the nginx version", "nginx was upgraded on Thursday"} {
		c.ok("add", f)
	}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	a.dbPath, a.global, a.noModel = c.db, true, true
	defer a.close()
	m, err := a.memory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, e := range []*holomem.Edge{
		{From: 1, To: 2, Kind: holomem.EdgeCausal, Weight: 1, Origin: holomem.OriginUser},
		{From: 2, To: 1, Kind: holomem.EdgeSimilar, Weight: 0.8, Origin: holomem.OriginImport},
		{From: 1, To: 3, Kind: holomem.EdgeSimilar, Weight: 0.7, Origin: holomem.OriginHNSW},
	} {
		if _, err := m.Store().CreateEdge(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	str := func(es []*holomem.Edge) []string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%d>%d %s", e.From, e.To, e.Kind))
		}
		slices.Sort(out)
		return out
	}
	all, err := m.Store().FindEdges(ctx, holomem.EdgeFilter{FactID: 1})
	if err != nil || len(all) != 3 {
		t.Fatalf("stored edges: %v, %v", all, err)
	}
	similar := []holomem.EdgeKind{holomem.EdgeSimilar}
	sim, err := m.Store().FindEdges(ctx, holomem.EdgeFilter{FactID: 1, Kinds: similar})
	if err != nil {
		t.Fatal(err)
	}
	want := str(holomem.ShownEdges(all, nil))
	wantSimilar := str(holomem.ShownEdges(sim, similar))
	if !slices.Equal(want, []string{"1>2 causal", "2>1 similar_to"}) || !slices.Equal(wantSimilar, []string{"1>3 similar_to", "2>1 similar_to"}) {
		t.Fatalf("ShowEdge: %v and %v for similar_to", want, wantSimilar)
	}

	cliEdges := func(args ...string) []string {
		var out struct{ Edges []*holomem.Edge }
		c.json(&out, append([]string{"edges", "1"}, args...)...)
		return str(out.Edges)
	}

	opts := web.Options{Namespace: a.ns(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ts := httptest.NewServer(web.NewServer(m, m.Store(), opts))
	defer ts.Close()
	webEdges := func(query string) []string {
		res, err := http.Get(ts.URL + "/api/facts/1/edges" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out web.EdgeList
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET edges%s: %d, %v", query, res.StatusCode, err)
		}
		return str(out.Edges)
	}

	srv := mcpserver.New(m, m.Store(), mcpserver.Options{Namespace: a.ns(), Version: "test"})
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"id": 1}})
	if err != nil || res.IsError {
		t.Fatalf("MCP get: %v, %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var got mcpserver.GetOutput
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}

	var exported []string
	sc := bufio.NewScanner(strings.NewReader(c.ok("export")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Type     string
			From, To int64
			Kind     string
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Type == "edge" && (l.From == 1 || l.To == 1) {
			exported = append(exported, fmt.Sprintf("%d>%d %s", l.From, l.To, l.Kind))
		}
	}
	slices.Sort(exported)

	for _, tt := range []struct {
		door      string
		got, want []string
	}{
		{"CLI edges", cliEdges(), want},
		{"CLI edges --kind similar_to", cliEdges("--kind", "similar_to"), wantSimilar},
		{"web /api/facts/1/edges", webEdges(""), want},
		{"web ?kind=similar_to", webEdges("?kind=similar_to"), wantSimilar},
		{"MCP get", str(got.Edges), want},
		{"export", exported, want},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s shows %v, want %v", tt.door, tt.got, tt.want)
		}
	}
}
