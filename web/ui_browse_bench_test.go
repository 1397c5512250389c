package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// BenchmarkBrowsePage measures the server time and size of the browse
// page (50 rows, count included) over a real SQLite store of benchFacts()
// facts spread over a year, with trust, tags and sources varied. The
// budget is 30 ms and 80 KB at 100k facts.
//
//	go test ./web -run '^$' -bench BrowsePage -benchtime 40x
func BenchmarkBrowsePage(b *testing.B) {
	n := benchFacts()
	mem, st := testutil.MustOpenMemory(b, retrieve.Options{})
	facts := synthFacts(n)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range facts {
		f.CreatedAt = start.Add(time.Duration(i) * 311 * time.Second)
		f.UpdatedAt = f.CreatedAt.Add(time.Duration(i%97) * time.Hour)
		f.Trust = float64(i%21) / 20
		f.Tags = []string{"t" + string(rune('a'+i%13))}
		f.Source = "src" + string(rune('a'+i%5))
	}
	for i := 0; i < len(facts); i += 2000 {
		if _, err := mem.Import(b.Context(), facts[i:min(i+2000, len(facts))]); err != nil {
			b.Fatal(err)
		}
	}
	h := web.NewServer(mem, st, web.Options{})
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	// A page deep in the default order: its cursor from walking there.
	deep := "/browse"
	for range 20 {
		rec := get(deep)
		next := nextLink(rec.Body.Bytes())
		if next == "" {
			break
		}
		deep = next
	}
	for _, bc := range []struct{ name, path string }{
		{"updated", "/browse"},
		{"updated-page-21", deep},
		{"tag", "/browse?tag=tc&sort=event"},
		{"trust-range", "/browse?min_trust=0.3&max_trust=0.6&sort=trust"},
		{"time-range", "/browse?time=event&from=2025-03-01&to=2025-03-31&sort=event&dir=asc"},
		{"retrievals", "/browse?sort=retrievals"},
		{"flagged", "/browse?flagged=1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rec := get(bc.path)
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: %d %.300s", bc.path, rec.Code, rec.Body)
			}
			if bc.name != "flagged" && strings.Count(rec.Body.String(), `class="hit"`) != 50 {
				b.Fatalf("%s: %d rows, want 50", bc.path, strings.Count(rec.Body.String(), `class="hit"`))
			}
			size, ops := 0, 0
			cpu0 := cputime.Process()
			for b.Loop() {
				size = get(bc.path).Body.Len()
				ops++
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(ops)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(size), "page-bytes")
			b.ReportMetric(float64(n), "facts")
		})
	}
}
