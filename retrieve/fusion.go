package retrieve

import (
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// The fts channel scores every candidate by BM25 over stems (see
// scoreBM25); this file holds the choices that depend on what kind of
// fact a candidate is. They were measured with `holomem eval` on three
// kinds of data (conversation turns of the LoCoMo development split, and
// encyclopedia entries and web passages in BEIR format) and are set by the
// fact's kind, never by data set.

// bm25Params are BM25's term saturation k1 and length normalisation b,
// and the weight of query word pairs found next to each other (0: not
// looked for; see pairTF).
type bm25Params struct{ k1, b, pairs float64 }

// Per kind of fact. Memory facts (notes, preferences, chat turns, commits)
// are short and the one that answers is often the longer, more detailed
// one, so their length counts little (b 0.3; recall@10 on conversations
// fell from 0.629 to 0.600 with b 0.75). Documents (entries, passages,
// sections of a page) vary in length for reasons unrelated to relevance,
// and a long one matches a word by chance more often: they take the
// textbook b 0.75 (nDCG@10 on encyclopedia entries rose from 0.437 to
// 0.459). k1 1.2 serves both; 0.9-1.5 moved neither by more than 0.01.
//
// Documents also score two query words that stand next to each other in
// the text ("hugh downs", "mercury thermometer"), at half the weight of a
// word: nDCG@10 rose by 0.009 on encyclopedia entries and 0.004 on web
// passages. Conversation turns gained nothing (recall@10 0.629 to 0.628):
// a question rarely shares a phrase with the turn that answers it.
var (
	memoryBM25   = bm25Params{k1: 1.2, b: 0.3}
	documentBM25 = bm25Params{k1: 1.2, b: 0.75, pairs: 0.5}
)

// documentCategories are the categories whose facts are documents, and so
// scored with [documentBM25]. Facts imported from Markdown without a
// category of their own are documents too.
var documentCategories = map[string]bool{
	"doc": true, "docs": true, "document": true, "documentation": true,
	"article": true, "page": true, "wiki": true, "reference": true, "paper": true,
}

// sourceMarkdown is importer.SourceMarkdown (retrieve does not import the
// importer).
const sourceMarkdown = "import:markdown"

// isDocument reports whether f is a document rather than a memory fact.
func isDocument(f *holomem.Fact) bool {
	if f.Category == "" {
		return f.Source == sourceMarkdown
	}
	return documentCategories[strings.ToLower(f.Category)]
}

// bm25ParamsOf returns the BM25 settings for f's kind.
func bm25ParamsOf(f *holomem.Fact) bm25Params {
	if isDocument(f) {
		return documentBM25
	}
	return memoryBM25
}

// A fact's heading is its first line when that line is short and more
// lines follow: a document's title, a Markdown section's "# heading", a
// commit's subject. Its words count headingWeight times (the fields of
// BM25F, added before saturation, with the heading's length counted as
// many times), since a heading names what the whole text is about.
// Single-line facts (most notes and every chat turn) have none and score
// as before. Weight 2 raised nDCG@10 on encyclopedia entries (title +
// abstract) from 0.459 to 0.468 (3 gave 0.473: within the noise of 40
// queries, and 2 is the more cautious for notes and commits, where it
// could not be measured).
const (
	headingWeight = 2.0
	// headingMaxTokens bounds a heading: a longer first line is a
	// sentence of the text, not its title.
	headingMaxTokens = 24
)

// addHeading adds the extra occurrences of the query's stems in f's
// heading to tf (by lq.stems) and returns the extra length.
func addHeading(content string, lq *lexicalQuery, tf []float64) int {
	i := strings.IndexByte(content, '\n')
	if i <= 0 || strings.TrimSpace(content[i:]) == "" {
		return 0
	}
	toks := text.Tokens(content[:i])
	if len(toks) == 0 || len(toks) > headingMaxTokens {
		return 0
	}
	for _, t := range toks {
		st := text.Stem(t)
		for j, s := range lq.stems {
			if s == st {
				tf[j] += headingWeight - 1
				break
			}
		}
	}
	return int((headingWeight - 1) * float64(len(toks)))
}

// hasPair reports whether a fact holds two consecutive query stems (by
// its tf, indexed like lexicalQuery.stems): only then can pairTF find one,
// and most candidates are skipped without reading their text.
func hasPair(tf []float64) bool {
	for j := 0; j+1 < len(tf); j++ {
		if tf[j] > 0 && tf[j+1] > 0 {
			return true
		}
	}
	return false
}

// pairTF counts into out[j] how often the query's stems j and j+1 stand
// next to each other in content, in either order, stop words skipped ("bank
// of america" holds the pair bank, america).
func pairTF(content string, lq *lexicalQuery, out []float64) {
	prev := -1
	for _, t := range text.Tokens(content) {
		if text.IsStopWord(t) {
			continue
		}
		st := text.Stem(t)
		cur := -1
		for j, s := range lq.stems {
			if s == st {
				cur = j
				break
			}
		}
		switch {
		case prev < 0 || cur < 0:
		case cur == prev+1:
			out[prev]++
		case prev == cur+1:
			out[cur]++
		}
		prev = cur
	}
}
