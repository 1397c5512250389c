package lexindex

import (
	"slices"
	"strings"

	"github.com/holomem/holomem/text"
)

// Terms is what lexical recall needs of one fact's text, derived once:
// recall's BM25 re-scoring and Jaccard channel and the [Index] share this
// one definition, so a fact scores the same whichever of them reads it.
type Terms struct {
	// Stems are the distinct stems (text.Stem) of text.Tokens(content +
	// " " + tags joined by spaces), in order of first occurrence, each with
	// its number of occurrences.
	Stems []StemCount
	// Len is the number of tokens: BM25's document length.
	Len int
	// ContentSet is the sorted set of the stems of
	// text.ContentTokens(content) (tags left out): the Jaccard channel's set.
	ContentSet []string
}

// StemCount is one distinct stem of a fact and how often it occurs.
type StemCount struct {
	Stem  string
	Count int
}

// TermsOf derives content and tags' terms (the function the brief called
// Terms: a Go package cannot have a type and a function of one name).
// It stems through text.Stem's small shared cache; to derive many facts,
// use a [Stemmer].
func TermsOf(content string, tags []string) Terms {
	return termsOf(content, tags, text.Stem)
}

// Stemmer derives terms like [TermsOf] and memoises every word's stem, for
// a bulk load: Snowball costs microseconds per word, and text.Stem's
// shared cache (32k slots) misses often on a large vocabulary. The memo
// grows with the vocabulary (tens of bytes per distinct word). A Stemmer
// is not safe for concurrent use: give each goroutine its own.
type Stemmer struct {
	memo map[string]string
}

// Stem returns text.Stem(tok), memoised.
func (s *Stemmer) Stem(tok string) string {
	if st, ok := s.memo[tok]; ok {
		return st
	}
	if s.memo == nil {
		s.memo = make(map[string]string, 1024)
	}
	st := text.Stem(tok)
	// Tokens that needed no folding are substrings of the fact's content:
	// clone them, or the memo would keep whole contents alive.
	s.memo[strings.Clone(tok)] = strings.Clone(st)
	return st
}

// Terms is [TermsOf] with memoised stems.
func (s *Stemmer) Terms(content string, tags []string) Terms {
	return termsOf(content, tags, s.Stem)
}

// Doc derives f's terms and returns it as a [Doc].
func (s *Stemmer) Doc(f Fact) Doc {
	return Doc{ID: f.ID, Namespace: f.Namespace, Superseded: f.Superseded, Terms: s.Terms(f.Content, f.Tags)}
}

// termsOf is the one definition of a fact's terms. Recall's results
// depend on it: change it only with the LoCoMo eval before and after.
func termsOf(content string, tags []string, stem func(string) string) Terms {
	var t Terms
	body := content
	if len(tags) > 0 {
		body += " " + strings.Join(tags, " ")
	}
	toks := text.Tokens(body)
	t.Len = len(toks)
	// A linear scan finds a stem among few faster than a map.
	var idx map[string]int
	for _, tok := range toks {
		st := stem(tok)
		i := -1
		if idx != nil {
			if j, ok := idx[st]; ok {
				i = j
			}
		} else {
			for j := range t.Stems {
				if t.Stems[j].Stem == st {
					i = j
					break
				}
			}
		}
		if i >= 0 {
			t.Stems[i].Count++
			continue
		}
		t.Stems = append(t.Stems, StemCount{Stem: st, Count: 1})
		if idx != nil {
			idx[st] = len(t.Stems) - 1
		} else if len(t.Stems) > 16 {
			idx = make(map[string]int, 2*len(t.Stems))
			for j, sc := range t.Stems {
				idx[sc.Stem] = j
			}
		}
	}
	ct := text.ContentTokens(content)
	set := make([]string, len(ct))
	for i, tok := range ct {
		set[i] = stem(tok)
	}
	slices.Sort(set)
	t.ContentSet = slices.Compact(set)
	return t
}
