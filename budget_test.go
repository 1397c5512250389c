package holomem_test

import (
	"strings"
	"testing"

	"github.com/holomem/holomem"
)

func TestFitBudget(t *testing.T) {
	size := func(k int) int { return 10 + 7*k } // 10 of envelope, 7 a hit
	tests := []struct{ n, budget, want int }{
		{0, 100, 0}, {5, 100, 5}, {20, 100, 12}, {20, 17, 1}, {20, 16, 0}, {20, 5, 0},
	}
	for _, tt := range tests {
		if got := holomem.FitBudget(tt.n, tt.budget, size); got != tt.want {
			t.Errorf("FitBudget(%d, %d) = %d, want %d", tt.n, tt.budget, got, tt.want)
		}
	}
}

func TestFitResult(t *testing.T) {
	res := &holomem.Result{Notes: []string{"first"}}
	for i := range 10 {
		res.Hits = append(res.Hits, holomem.Hit{Fact: &holomem.Fact{ID: int64(i + 1), Content: strings.Repeat("x", 400)}})
	}
	tokens := func(r *holomem.Result) int { return 20 + 100*len(r.Hits) + 10*len(r.Notes) }
	holomem.FitResult(res, 450, 30, tokens)
	if len(res.Hits) != 4 || res.Omitted != 6 || res.NextOffset != 34 || len(res.Notes) != 2 || !strings.Contains(res.Notes[1], "offset 34") {
		t.Fatalf("fit: %d hits, omitted %d, next %d, notes %q", len(res.Hits), res.Omitted, res.NextOffset, res.Notes)
	}
	if n := tokens(res); n > 450 {
		t.Errorf("%d tokens over 450", n)
	}
	lean := res.SnippetsOnly()
	if lean.Hits[0].Fact.Content != "" || res.Hits[0].Fact.Content == "" {
		t.Errorf("SnippetsOnly changed the original or kept the content")
	}
}

func TestValidateBudget(t *testing.T) {
	for _, b := range []int{0, holomem.MinBudget, holomem.MaxBudget} {
		if err := holomem.ValidateBudget(b); err != nil {
			t.Errorf("budget %d: %v", b, err)
		}
	}
	for _, b := range []int{-1, holomem.MinBudget - 1, holomem.MaxBudget + 1} {
		if err := holomem.ValidateBudget(b); err == nil {
			t.Errorf("budget %d accepted", b)
		}
	}
}
