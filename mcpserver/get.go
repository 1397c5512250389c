package mcpserver

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// GetInput are the arguments of the get tool.
type GetInput struct {
	ID        int64  `json:"id"`
	Offset    int    `json:"offset,omitempty" jsonschema:"byte offset to read the content from (a hit's passage.start, or next_offset)"`
	Budget    int    `json:"budget,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// GetOutput is what the get tool returns: the fact's labels, as much of
// its content from Offset as the budget holds, and its edges.
type GetOutput struct {
	Fact    *FactView `json:"fact"`
	Content string    `json:"content"`
	Offset  int       `json:"offset,omitempty"`
	// NextOffset is where the content goes on (0: it ends here).
	NextOffset   int             `json:"next_offset,omitempty"`
	Entities     []string        `json:"entities,omitempty"`
	Edges        []*holomem.Edge `json:"edges,omitempty"`
	EdgesOmitted int             `json:"edges_omitted,omitempty"`
	Risks        []string        `json:"risks,omitempty"`
}

func (s *Server) get(ctx context.Context, in GetInput) (*GetOutput, error) {
	budget, err := budgetOr(in.Budget)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	f, err := s.factIn(ctx, s.namespace(in.Namespace), in.ID)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	if in.Offset < 0 || in.Offset > len(f.Content) {
		return nil, fmt.Errorf("get %d: %w: offset %d is outside the content's 0..%d bytes", f.ID, holomem.ErrInvalid, in.Offset, len(f.Content))
	}
	edges, err := s.store.FindEdges(ctx, holomem.EdgeFilter{FactID: f.ID, Limit: holomem.MaxLimit})
	if err != nil {
		return nil, fmt.Errorf("get %d: edges: %w", f.ID, err)
	}
	// The rule every door shows edges by; get asks for no kind.
	edges = holomem.ShownEdges(edges, nil)
	content := f.Content
	out := &GetOutput{Fact: factView(f), Entities: f.Entities}
	if risks := text.InstructionRisks(content); len(risks) > 0 {
		out.Risks = risks
	}
	// An offset inside a character starts at the next one.
	start := in.Offset
	for start < len(content) && !utf8.RuneStart(content[start]) {
		start++
	}
	rest := content[start:]
	out.Offset = start
	out.Fact.Snippet = "" // the content itself follows
	// The content first, then as many edges as still fit.
	window := func(n int) string {
		c := rest[:advance(rest, n)]
		if len(out.Risks) > 0 {
			c = text.QuoteData(c)
		}
		return c
	}
	setContent := func(n int) {
		out.Content = window(n)
		out.NextOffset = 0
		if end := start + advance(rest, n); end < len(content) {
			out.NextOffset = end
		}
	}
	nr := min(utf8.RuneCountInString(rest), 4*budget)
	k := holomem.FitBudget(nr, budget, func(n int) int { setContent(n); return s.wireTokens(out) })
	setContent(k)
	e := holomem.FitBudget(len(edges), budget, func(n int) int {
		out.Edges, out.EdgesOmitted = edges[:n], len(edges)-n
		return s.wireTokens(out)
	})
	out.Edges, out.EdgesOmitted = edges[:e], len(edges)-e
	if len(out.Edges) == 0 {
		out.Edges = nil
	}
	return out, nil
}

// advance returns the byte length of the first n runes of s.
func advance(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}
