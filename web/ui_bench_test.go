package web_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// benchFacts is the store size of BenchmarkSearchPage: the budget
// is stated at 100k facts; HOLOMEM_WEB_BENCH_FACTS changes it.
func benchFacts() int {
	if n, err := strconv.Atoi(os.Getenv("HOLOMEM_WEB_BENCH_FACTS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// synthFacts makes n facts of 12-20 words from a 4,000-word vocabulary
// with a Zipf-like skew, deterministically.
func synthFacts(n int) []*holomem.Fact {
	r := rand.New(rand.NewPCG(7, 11))
	vocab := make([]string, 4000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%sx%d", strings.Repeat(string(rune('a'+i%26)), 1+i%3), i)
	}
	z := rand.NewZipf(r, 1.1, 4, uint64(len(vocab)-1))
	cats := []string{"project", "user_pref", "decision", "issue", "pr", "general"}
	out := make([]*holomem.Fact, n)
	for i := range out {
		k := 12 + r.IntN(9)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = vocab[z.Uint64()]
		}
		out[i] = &holomem.Fact{Content: fmt.Sprintf("fact %d: %s", i, strings.Join(ws, " ")), Category: cats[i%len(cats)]}
	}
	return out
}

// BenchmarkSearchPage measures the server time of the search page with 20
// hits (recall plus rendering) over a real SQLite store of benchFacts()
// facts, without a model. The budget is 30 ms at 100k facts.
//
//	go test ./web -run '^$' -bench SearchPage -benchtime 50x
func BenchmarkSearchPage(b *testing.B) {
	n := benchFacts()
	mem, st := testutil.MustOpenMemory(b, retrieve.Options{})
	facts := synthFacts(n)
	for i := 0; i < len(facts); i += 2000 {
		if _, err := mem.Import(b.Context(), facts[i:min(i+2000, len(facts))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := mem.Warm(b.Context()); err != nil {
		b.Fatal(err)
	}
	h := web.NewServer(mem, st, web.Options{})
	// Words from three facts: frequent enough to give 20 hits, mixed
	// enough that every channel scores.
	q := strings.Join(strings.Fields(facts[n/2].Content)[2:4], " ") + " " + strings.Fields(facts[n/3].Content)[2]
	path := "/?limit=20&min_trust=0&q=" + strings.ReplaceAll(q, " ", "+")
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	if rec := get(); rec.Code != http.StatusOK || strings.Count(rec.Body.String(), `class="hit"`) != 20 {
		b.Fatalf("search page: %d, %d hits for %q", rec.Code, strings.Count(rec.Body.String(), `class="hit"`), q)
	}
	b.ResetTimer()
	size := 0
	for b.Loop() {
		size = get().Body.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(float64(n), "facts")
}
