package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// BenchmarkGraphPages measures the graph picture (depth 1 and 2) and the
// central facts page over a real SQLite store of benchFacts() facts, each
// linked to the next (temporal) and every tenth to a hub of its hundred
// (causal): a namespace of about 1.1 edges per fact.
//
//	go test ./web -run '^$' -bench GraphPages -benchtime 10x
func BenchmarkGraphPages(b *testing.B) {
	n := benchFacts()
	mem, st := testutil.MustOpenMemory(b, retrieve.Options{})
	facts := synthFacts(n)
	for i := 0; i < len(facts); i += 2000 {
		if _, err := mem.Import(b.Context(), facts[i:min(i+2000, len(facts))]); err != nil {
			b.Fatal(err)
		}
	}
	var edges []*holomem.Edge
	for i := 1; i < n; i++ {
		edges = append(edges, &holomem.Edge{From: facts[i-1].ID, To: facts[i].ID, Kind: holomem.EdgeTemporal, Weight: 1})
		if i%10 == 0 && i%100 != 0 {
			edges = append(edges, &holomem.Edge{From: facts[i].ID, To: facts[i-i%100].ID, Kind: holomem.EdgeCausal, Weight: 1})
		}
	}
	for i := 0; i < len(edges); i += 5000 {
		if _, err := st.CreateEdges(b.Context(), edges[i:min(i+5000, len(edges))]); err != nil {
			b.Fatal(err)
		}
	}
	h := web.NewServer(mem, st, web.Options{})
	hub := facts[n/2-n/2%100].ID
	for _, bc := range []struct{ name, path, want string }{
		{"picture-depth-1", fmt.Sprintf("/facts/%d/graph", hub), "<svg"},
		{"picture-depth-2", fmt.Sprintf("/facts/%d/graph?depth=2", hub), "<svg"},
		{"central", "/graph", `id="central"`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			get := func() *httptest.ResponseRecorder {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, bc.path, nil))
				return rec
			}
			if rec := get(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), bc.want) {
				b.Fatalf("%s: %d %.300s", bc.path, rec.Code, rec.Body)
			}
			size, ops := 0, 0
			cpu0 := cputime.Process()
			for b.Loop() {
				size = get().Body.Len()
				ops++
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(ops)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(size), "page-bytes")
			b.ReportMetric(float64(n), "facts")
		})
	}
}
