package holomem

import (
	"fmt"
	"unicode/utf8"
)

// Token budgets. A door that hands recall's answer to a model bounds the
// whole answer by a budget in tokens, estimated as runes / 4 rounded up
// ([EstimateTokens]): hits are dropped from the end until the answer fits,
// and the answer says how many were left out and the offset that pages to
// them. The estimate is deliberately simple so that a caller can check it.
const (
	// DefaultMCPBudget bounds an MCP tool's answer (content and structured
	// content together): far below what agents accept from one tool call
	// (Claude Code cuts at about 25,000 tokens).
	DefaultMCPBudget = 2000
	// MaxMCPBudget is the largest budget an MCP call may ask for: below
	// the 25,000 tokens agents accept from one tool call, so no call can
	// flood the agent's context whatever the facts hold.
	MaxMCPBudget = 20000
	// DefaultHookBudget bounds the facts the prompt hook injects.
	DefaultHookBudget = 600
	// MinBudget is the smallest budget accepted: an answer that says
	// nothing fits and how to page needs about this much.
	MinBudget = 200
	// MaxBudget is the largest budget accepted.
	MaxBudget = 1 << 20
)

// EstimateTokens is the token estimate budgets use: the runes of s / 4,
// rounded up.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// ValidateBudget rejects a budget outside MinBudget..MaxBudget; 0 (no
// budget given) is valid.
func ValidateBudget(b int) error {
	if b != 0 && (b < MinBudget || b > MaxBudget) {
		return fmt.Errorf("%w: budget %d tokens is outside %d..%d", ErrInvalid, b, MinBudget, MaxBudget)
	}
	return nil
}

// FitBudget returns the largest k <= n for which tokens(k) <= budget, or 0
// when none fits; tokens(k) is the estimated size of the answer made of
// the first k items and must grow with k. It calls tokens O(log n) times.
func FitBudget(n, budget int, tokens func(k int) int) int {
	if tokens(n) <= budget {
		return n
	}
	lo, hi := 0, n // tokens(lo) fits or lo == 0; tokens(hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if tokens(mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// OmittedNote tells the reader of a budgeted answer what was left out and
// how to page to it.
func OmittedNote(omitted, nextOffset, budget int) string {
	return fmt.Sprintf("%d more hits left out to stay within the budget of %d tokens: ask again with offset %d (or a larger budget)", omitted, budget, nextOffset)
}

// FitResult drops hits from the end of res until tokens(res) <= budget,
// and records what it left out (Omitted, NextOffset, a note); offset is
// the query's. tokens estimates the whole answer as the door sends it.
func FitResult(res *Result, budget, offset int, tokens func(*Result) int) {
	all, notes := res.Hits, res.Notes
	set := func(k int) {
		res.Hits, res.Omitted, res.NextOffset, res.Notes = all[:k], 0, 0, notes
		if k < len(all) {
			res.Omitted, res.NextOffset = len(all)-k, offset+k
			res.Notes = append(notes[:len(notes):len(notes)], OmittedNote(res.Omitted, res.NextOffset, budget))
		}
	}
	k := FitBudget(len(all), budget, func(k int) int { set(k); return tokens(res) })
	set(k)
}

// SnippetsOnly returns res with each hit's fact a copy without its
// content and vectors: the hits' snippets say what matched, and an
// answer's size no longer grows with the facts' length. Doors do this
// unless the caller asks for full content.
func (r *Result) SnippetsOnly() *Result {
	c := *r
	c.Hits = make([]Hit, len(r.Hits))
	for i, h := range r.Hits {
		if h.Fact != nil {
			f := *h.Fact
			f.Content, f.Embedding, f.HRR = "", nil, nil
			h.Fact = &f
		}
		c.Hits[i] = h
	}
	return &c
}
