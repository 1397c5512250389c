package retrieve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/holomem/holomem"
)

// Staleness reasons set in [holomem.Hit.Stale].
const (
	StaleChanged = "anchored file changed"
	StaleMissing = "anchored file vanished"
)

// markStale checks the anchored file of each hit and marks hits whose file
// changed or vanished since the fact was written.
func (m *Memory) markStale(hits []holomem.Hit) {
	for i := range hits {
		hits[i].Stale = m.AnchorState(hits[i].Fact.Anchor)
	}
}

// AnchorState returns "" when the anchor's file still has the recorded
// hash (or there is no anchor), else StaleChanged or StaleMissing.
func (m *Memory) AnchorState(a *holomem.Anchor) string {
	if a == nil {
		return ""
	}
	p := a.Path
	if !filepath.IsAbs(p) {
		if root := m.anchorRoot(); root != "" {
			p = filepath.Join(root, p)
		}
	}
	sum, err := FileHash(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return StaleMissing
	case err != nil:
		return StaleChanged
	case a.Hash != "" && sum != a.Hash:
		return StaleChanged
	}
	return ""
}

// FileHash returns the hex SHA-256 of a file's content (the anchor hash).
func FileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// anchorRoot returns Options.AnchorRoot, asking FindAnchorRoot once when it
// is empty.
func (m *Memory) anchorRoot() string {
	m.anchorOnce.Do(func() {
		if m.opts.AnchorRoot == "" && m.opts.FindAnchorRoot != nil {
			m.opts.AnchorRoot = m.opts.FindAnchorRoot()
		}
	})
	return m.opts.AnchorRoot
}
