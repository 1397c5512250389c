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

// Stemmer derives terms like [TermsOf], faster, for a bulk load: it
// memoises every word's stem (Snowball costs microseconds per word, and
// text.Stem's shared cache of 32k slots misses often on a large
// vocabulary) and whether it is a stop word, and counts stems by number
// instead of by string. The memo grows with the vocabulary (about 100
// bytes per distinct word). The Terms it returns share its stem strings.
// A Stemmer is not safe for concurrent use: give each goroutine its own.
type Stemmer struct {
	words   map[string]int32 // token -> word number
	word    []stemmerWord
	stemNum map[string]int32
	stems   []string // by stem number
	// at[stem] is 1 + the stem's index in the Terms being built, valid
	// while seen[stem] == gen.
	at   []int32
	seen []uint32
	gen  uint32
	toks []string
	set  []int32
}

type stemmerWord struct {
	stem int32
	stop bool
}

// Stem returns text.Stem(tok), memoised.
func (s *Stemmer) Stem(tok string) string {
	return s.stems[s.lookup(tok).stem]
}

func (s *Stemmer) lookup(tok string) stemmerWord {
	if w, ok := s.words[tok]; ok {
		return s.word[w]
	}
	if s.words == nil {
		s.words = make(map[string]int32, 1024)
		s.stemNum = make(map[string]int32, 1024)
	}
	st := text.Stem(tok)
	n, ok := s.stemNum[st]
	if !ok {
		// Tokens that needed no folding are substrings of a fact's
		// content: clone them, or the memo would keep contents alive.
		st = strings.Clone(st)
		n = int32(len(s.stems))
		s.stemNum[st] = n
		s.stems = append(s.stems, st)
		s.at = append(s.at, 0)
		s.seen = append(s.seen, 0)
	}
	w := stemmerWord{stem: n, stop: text.IsStopWord(tok)}
	s.words[strings.Clone(tok)] = int32(len(s.word))
	s.word = append(s.word, w)
	return w
}

// nextGen starts a new set of marks in s.seen.
func (s *Stemmer) nextGen() {
	s.gen++
	if s.gen == 0 {
		clear(s.seen)
		s.gen = 1
	}
}

// Terms is [TermsOf] with memoised stems. Tokens(content + " " + tags)
// are Tokens(content) then Tokens(tags): the tokenizer keeps no state
// across a space, so content is tokenised once for both the stems and the
// content set (TestStemmer checks the two derivations agree).
func (s *Stemmer) Terms(content string, tags []string) Terms {
	t, _ := s.termsNums(content, tags, false)
	return t
}

// termsNums is Terms and, if nums, each stem's number in s.
func (s *Stemmer) termsNums(content string, tags []string, nums bool) (Terms, []int32) {
	s.toks = text.AppendTokens(s.toks[:0], content)
	nContent := len(s.toks)
	if len(tags) > 0 {
		s.toks = text.AppendTokens(s.toks, strings.Join(tags, " "))
	}
	var t Terms
	t.Len = len(s.toks)
	s.nextGen()
	t.Stems = make([]StemCount, 0, len(s.toks))
	var ns []int32
	if nums {
		ns = make([]int32, 0, len(s.toks))
	}
	s.set = s.set[:0]
	anyContent := false
	for i, tok := range s.toks {
		w := s.lookup(tok)
		if s.seen[w.stem] == s.gen {
			t.Stems[s.at[w.stem]-1].Count++
		} else {
			s.seen[w.stem] = s.gen
			t.Stems = append(t.Stems, StemCount{Stem: s.stems[w.stem], Count: 1})
			s.at[w.stem] = int32(len(t.Stems))
			if nums {
				ns = append(ns, w.stem)
			}
		}
		if i < nContent && !w.stop {
			anyContent = true
			s.set = append(s.set, w.stem)
		}
	}
	t.Stems = slices.Clip(t.Stems)
	if !anyContent { // only stop words: all of them (text.ContentTokens)
		for _, tok := range s.toks[:nContent] {
			s.set = append(s.set, s.lookup(tok).stem)
		}
	}
	set := make([]string, len(s.set))
	for i, n := range s.set {
		set[i] = s.stems[n]
	}
	slices.Sort(set)
	t.ContentSet = slices.Compact(set)
	return t, ns
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
