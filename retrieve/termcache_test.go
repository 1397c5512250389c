package retrieve

import (
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// TestTermCache checks that cached terms are those of the fact's current
// text: the same counts as stemming every token, and recomputed when the
// content or the tags change under the same id.
func TestTermCache(t *testing.T) {
	var c termCache
	cases := []struct {
		name    string
		content string
		tags    []string
	}{
		{"first", "Alice deployed the billing services; billing deploys fail", nil},
		{"same id, new content", "Bob reviews the payments service", nil},
		{"same content, tags added", "Bob reviews the payments service", []string{"review", "payments"}},
		{"cyrillic", "Алиса развернула сервисы оплаты", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &holomem.Fact{ID: 7, Content: tc.content, Tags: tc.tags}
			got := c.get(f)
			body := strings.Join(append([]string{tc.content}, tc.tags...), " ")
			want := map[string]float64{}
			toks := text.Tokens(body)
			for _, tok := range toks {
				want[text.Stem(tok)]++
			}
			have := map[string]float64{}
			for _, sc := range got.stems {
				have[sc.stem] += sc.count
			}
			if got.n != len(toks) || len(have) != len(want) || len(got.stems) != len(want) {
				t.Fatalf("n %d stems %v, want n %d stems %v", got.n, got.stems, len(toks), want)
			}
			for st, n := range want {
				if have[st] != n {
					t.Errorf("stem %q: count %v, want %v", st, have[st], n)
				}
			}
			if ws := stemSet(text.ContentTokens(tc.content)); !slices.Equal(got.contentSet, ws) {
				t.Errorf("content set %v, want %v", got.contentSet, ws)
			}
			if again := c.get(f); again != got {
				t.Error("second lookup of an unchanged fact recomputed its terms")
			}
		})
	}
}

// TestTermCacheBounded checks that the cache holds at most two generations.
func TestTermCacheBounded(t *testing.T) {
	var c termCache
	for id := range int64(3*termCacheSize + 5) {
		c.get(&holomem.Fact{ID: id + 1, Content: "a fact"})
	}
	if n := len(c.cur) + len(c.old); n > 2*termCacheSize {
		t.Fatalf("cache holds %d entries, bound %d", n, 2*termCacheSize)
	}
}
