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
	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/internal/testkit/testutil"
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

// vocabWord is the word of rank k in synthFacts' vocabulary.
func vocabWord(k int) string {
	return fmt.Sprintf("w%sx%d", strings.Repeat(string(rune('a'+k%26)), 1+k%3), k)
}

// synthFacts makes n facts of 12-20 words from a 4,000-word vocabulary
// with a Zipf-like skew, deterministically.
func synthFacts(n int) []*holomem.Fact {
	r := rand.New(rand.NewPCG(7, 11))
	vocab := make([]string, 4000)
	for i := range vocab {
		vocab[i] = vocabWord(i)
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
//	go test ./web -run '^$' -bench SearchPage -benchtime 40x
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
	for _, bc := range []struct {
		name  string
		words []int
	}{
		// Words of rank 300, 700 and 1500: each in a few hundred facts,
		// like the names and terms people search for.
		{"specific-words", []int{300, 700, 1500}},
		// Words of rank 2, 5 and 9: each in a large share of the facts,
		// the full-text channel's worst case.
		{"common-words", []int{2, 5, 9}},
	} {
		q := make([]string, len(bc.words))
		for i, k := range bc.words {
			q[i] = vocabWord(k)
		}
		path := "/?limit=20&min_trust=0&q=" + strings.Join(q, "+")
		b.Run(bc.name, func(b *testing.B) { benchPage(b, h, path, n) })
	}
}

func benchPage(b *testing.B, h http.Handler, path string, n int) {
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	if rec := get(); rec.Code != http.StatusOK || strings.Count(rec.Body.String(), `class="hit"`) != 20 {
		b.Fatalf("search page: %d, %d hits for %s", rec.Code, strings.Count(rec.Body.String(), `class="hit"`), path)
	}
	b.ResetTimer()
	size, ops := 0, 0
	cpu0 := cputime.Process()
	for b.Loop() {
		size = get().Body.Len()
		ops++
	}
	// CPU time per page next to wall time: on a loaded machine the wall
	// figure includes waiting for a core.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(ops)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(size), "page-bytes")
	b.ReportMetric(float64(n), "facts")
}
