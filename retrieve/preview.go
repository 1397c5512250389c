package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// Preview runs Remember's write-time checks on f without storing it: the
// near-duplicates and likely contradictions a person sees before deciding
// to save (the web UI's add page). f is normalised and validated; the
// report's Fact is f, with no id.
func (m *Memory) Preview(ctx context.Context, f *holomem.Fact) (*holomem.Remembered, error) {
	f.Normalize()
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var qv []float32
	if m.emb != nil {
		if v, err := m.embedOne(ctx, f.Content); err == nil {
			qv = v
		}
	}
	dups, contras, refines, err := m.hygiene(ctx, f, text.Tokens(f.Content), text.Entities(f.Content), qv)
	if err != nil {
		return nil, fmt.Errorf("check duplicates: %w", err)
	}
	return &holomem.Remembered{Fact: f, NearDuplicates: dups, Contradictions: contras, Refinements: refines}, nil
}
