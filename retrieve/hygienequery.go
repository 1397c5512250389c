package retrieve

import (
	"context"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// maxExpansions bounds how many referenced records one query pulls in.
const maxExpansions = 3

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

// maxRefText bounds how much of a referenced record's text joins the
// full-text query.
const maxRefText = 1000

// expandRefs is query hygiene inside Recall, so every door (CLI, MCP,
// HTTP, hook) treats `#123`, `owner/repo#123` and issue or PR URLs alike,
// with or without a model: it returns the facts the references name (they
// join the candidates as exact matches) and the text the full-text,
// Jaccard and HRR channels search: the query without URLs plus the
// referenced records' text, so the PR that fixed an issue is found from
// the issue's number. Without references it returns q.Text unchanged.
// It sets q.EmbedText, when empty, to what the semantic channel embeds.
func (m *Memory) expandRefs(ctx context.Context, q *holomem.Query) (string, []*holomem.Fact) {
	var refs []*holomem.Fact
	for _, ref := range text.IssueRefs(q.Text) {
		if len(refs) == maxExpansions {
			break
		}
		if f := m.findRef(ctx, q.Namespace, ref); f != nil && !slices.ContainsFunc(refs, func(g *holomem.Fact) bool { return g.ID == f.ID }) {
			refs = append(refs, f)
		}
	}
	if len(refs) == 0 {
		return q.Text, nil
	}
	parts := []string{text.StripForEmbedding(q.Text)}
	for _, f := range refs {
		c := f.Content
		if len(c) > maxRefText {
			c = strings.ToValidUTF8(c[:maxRefText], "")
		}
		parts = append(parts, c)
	}
	lex := strings.Join(parts, "\n")
	if q.EmbedText == "" {
		q.EmbedText = lex
	}
	return lex, refs
}
