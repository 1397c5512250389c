package retrieve

import (
	"context"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// analysis is what recall reads from a query, worked out once per request
// and handed to every stage and channel: none of them tokenises, stems or
// parses the query again.
type analysis struct {
	// lex is the text the lexical channels (fts, jaccard, hrr) read: the
	// query, followed by the text of the records it references (#123).
	lex string
	// refs are the records the query references; they match it exactly.
	refs []*holomem.Fact
	// tokens are lex's content words (stop and question words removed) and
	// stems their stems, one for one.
	tokens, stems []string
	// stemSet is the sorted set of stems (Jaccard's and the snippets' query).
	stemSet []string
	// entities are the entities named in lex (nil without HRR).
	entities []text.Entity
	// ftsText is lex as a full-text query for the store (made on first
	// use: a process with the live text index needs it only to look in
	// other namespaces).
	ftsText string
	// period is the period the query names, when hasPeriod.
	period    text.TimeRange
	hasPeriod bool
}

// analyse reads q once for all the stages. It expands the references in q
// (setting q.EmbedText when they add text, see expandRefs).
func (m *Memory) analyse(ctx context.Context, q *holomem.Query) *analysis {
	a := &analysis{}
	a.lex, a.refs = m.expandRefs(ctx, q)
	a.tokens = text.ContentTokens(a.lex)
	a.stems = make([]string, len(a.tokens))
	for i, t := range a.tokens {
		a.stems[i] = text.Stem(t)
	}
	a.stemSet = text.SortedSet(append([]string(nil), a.stems...))
	if !m.opts.DisableHRR {
		a.entities = text.Extract(a.lex, nil)
	}
	a.period, a.hasPeriod = m.queryPeriod(q.Text)
	return a
}

// isRef reports whether the query references the fact id.
func (a *analysis) isRef(id int64) bool {
	for _, f := range a.refs {
		if f.ID == id {
			return true
		}
	}
	return false
}

// storeQuery returns lex as the store's full-text search reads it.
func (a *analysis) storeQuery() string {
	if a.ftsText == "" {
		a.ftsText = text.QueryText(a.lex)
	}
	return a.ftsText
}
