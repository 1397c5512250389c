package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/holomem/holomem"
)

// ListInput are the arguments of the list tool.
type ListInput struct {
	Category  string `json:"category,omitempty"`
	Tag       string `json:"tag,omitempty"`
	Limit     int    `json:"limit,omitempty" jsonschema:"default 10"`
	Offset    int    `json:"offset,omitempty" jsonschema:"skip this many of the newest (paging)"`
	Budget    int    `json:"budget,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// ListOutput is a page of facts, newest first.
type ListOutput struct {
	Facts      []*FactView `json:"facts"`
	Total      int         `json:"total"`
	Omitted    int         `json:"omitted,omitempty"`
	NextOffset int         `json:"next_offset,omitempty"`
}

// list pages through a namespace's facts, newest (highest id) first.
func (s *Server) list(ctx context.Context, in ListInput) (*ListOutput, error) {
	budget, err := budgetOr(in.Budget)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	limit := limitOr(in.Limit)
	if limit < 0 || limit > holomem.MaxLimit || in.Offset < 0 {
		return nil, fmt.Errorf("list: %w: limit %d must be in 1..%d and offset %d >= 0", holomem.ErrInvalid, limit, holomem.MaxLimit, in.Offset)
	}
	ns := s.namespace(in.Namespace)
	flt := holomem.FactFilter{Namespace: &ns, Limit: 1}
	if c := strings.TrimSpace(in.Category); c != "" {
		flt.Category = &c
	}
	if t := holomem.NormalizeTags([]string{in.Tag}); len(t) == 1 {
		flt.Tag = &t[0]
	}
	_, total, err := s.store.FindFacts(ctx, flt)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	out := &ListOutput{Facts: []*FactView{}, Total: total}
	// The store orders by id: the newest page is counted from the end.
	end := total - in.Offset
	if end > 0 {
		flt.Offset, flt.Limit = max(0, end-limit), min(limit, end)
		facts, _, err := s.store.FindFacts(ctx, flt)
		if err != nil {
			return nil, fmt.Errorf("list: %w", err)
		}
		for i := len(facts) - 1; i >= 0; i-- {
			out.Facts = append(out.Facts, factView(facts[i]))
		}
	}
	all := out.Facts
	k := holomem.FitBudget(len(all), budget, func(k int) int {
		out.Facts, out.Omitted, out.NextOffset = all[:k], 0, 0
		if k < len(all) {
			out.Omitted, out.NextOffset = len(all)-k, in.Offset+k
		}
		return s.wireTokens(out)
	})
	out.Facts, out.Omitted, out.NextOffset = all[:k], 0, 0
	if k < len(all) {
		out.Omitted, out.NextOffset = len(all)-k, in.Offset+k
	}
	return out, nil
}
