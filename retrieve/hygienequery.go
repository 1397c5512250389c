package retrieve

import (
	"context"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// maxExpansions bounds how many referenced records one query pulls in.
const maxExpansions = 3

// ExpandQuery applies query hygiene (DESIGN.md 3.1) and returns the text the
// semantic channel should embed: issue references (`#123`, `owner/repo#123`,
// issue and PR URLs) are replaced by the referenced record's text when
// memory holds it, and URLs, attachment markup and file paths are stripped.
// The raw query still goes to full-text search unchanged.
func (m *Memory) ExpandQuery(ctx context.Context, namespace, raw string) string {
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	var parts []string
	for _, ref := range text.IssueRefs(raw) {
		if len(parts) == maxExpansions {
			break
		}
		if f := m.findRef(ctx, namespace, ref); f != nil {
			parts = append(parts, f.Content)
		}
	}
	stripped := text.StripForEmbedding(raw)
	if len(parts) == 0 {
		return stripped
	}
	return strings.TrimSpace(stripped + "\n" + text.StripForEmbedding(strings.Join(parts, "\n")))
}

// findRef looks a reference up by the external keys importers write:
// `github:owner/repo#N` (with the repo from the reference, or from a
// namespace named after a GitHub project) and `issue:#N`.
func (m *Memory) findRef(ctx context.Context, namespace, ref string) *holomem.Fact {
	var keys []string
	if strings.HasPrefix(ref, "#") {
		if repo, ok := strings.CutPrefix(namespace, "github.com/"); ok {
			keys = append(keys, "github:"+repo+ref)
		}
		keys = append(keys, "issue:"+ref)
	} else {
		keys = append(keys, "github:"+ref)
	}
	for _, k := range keys {
		if f, err := m.store.FindFactByExternalKey(ctx, namespace, k); err == nil {
			return f
		}
	}
	return nil
}
