package retrieve

import (
	"context"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
)

// Staleness reasons set in [holomem.Hit.Stale].
const (
	StaleChanged = anchor.Changed
	StaleMissing = anchor.Missing
)

// markStale checks the anchored file of each hit and marks hits whose file
// changed or vanished since the fact was written. Reads are confined to the
// anchor root, capped and bounded by ctx (see package anchor).
func (m *Memory) markStale(ctx context.Context, hits []holomem.Hit) {
	for i := range hits {
		hits[i].Stale = m.anchors.State(ctx, hits[i].Fact.Anchor)
	}
}

// AnchorState returns "" when the anchor's file still has the recorded
// hash, when there is no anchor, or when it cannot be checked (no anchor
// root, or a path from an older version outside it); else StaleChanged or
// StaleMissing.
func (m *Memory) AnchorState(ctx context.Context, a *holomem.Anchor) string {
	return m.anchors.State(ctx, a)
}

// Anchors returns the checker recall uses, for callers that list anchors
// that cannot be checked (doctor) or hash new ones (add --anchor).
func (m *Memory) Anchors() *anchor.Checker { return m.anchors }

// NewAnchor anchors a fact to the file rel names under the anchor root
// (see [anchor.New]): a regular file inside the root, hashed now. The HTTP
// API makes its anchors here, as the CLI does with the same checks.
func (m *Memory) NewAnchor(ctx context.Context, rel string) (*holomem.Anchor, error) {
	return anchor.New(ctx, m.anchors.Root(), rel)
}
