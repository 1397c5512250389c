package retrieve

import (
	"slices"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/lexindex"
	"github.com/holomem/holomem/text"
)

// factTerms is what recall's re-scoring needs of one fact's text: the
// stems of its content and tags with their counts (BM25) and the sorted
// stem set of its content words (Jaccard). Tokenising and stemming every
// candidate was a fifth of a warm recall's CPU, and the same facts come
// back query after query, so recall keeps them in a [termCache].
type factTerms struct {
	// content and tags are the text the terms were derived from: an entry
	// is used only while the fact still has exactly this text, so a fact
	// changed by any process (or reused id) is never scored on stale terms.
	content string
	tags    []string

	// stems are the distinct stems of text.Tokens(content + tags), each
	// with its count; n is the number of tokens (BM25's document length):
	// lexindex.TermsOf, the one definition recall and the index share.
	stems []stemCount
	n     int
	// contentSet is stemSet(text.ContentTokens(content)).
	contentSet []string

	// passages are a long fact's passages (text.Passages) with their
	// terms, made on first use: recall scores a long fact by its best one.
	passOnce sync.Once
	passages []passageTerms
}

// passageTerms are one passage's terms, as factTerms has them for a fact.
type passageTerms struct {
	passage text.Passage
	stems   []stemCount
	n       int
}

// passageTerms returns the terms of each of the fact's passages.
func (t *factTerms) passageTerms() []passageTerms {
	t.passOnce.Do(func() {
		for _, p := range text.Passages(t.content) {
			lt := lexindex.TermsOf(t.content[p.Start:p.End], nil)
			pt := passageTerms{passage: p, n: lt.Len, stems: make([]stemCount, len(lt.Stems))}
			for i, sc := range lt.Stems {
				pt.stems[i] = stemCount{stem: sc.Stem, count: float64(sc.Count)}
			}
			t.passages = append(t.passages, pt)
		}
	})
	return t.passages
}

type stemCount struct {
	stem  string
	count float64
}

// termCacheSize bounds each of the cache's two generations (so at most
// twice this many facts, a few KB each, are held).
const termCacheSize = 4096

// termCache holds factTerms by fact id in two generations: lookups hit
// either, inserts go to the current one, and when it is full the older is
// dropped. That bounds memory like an LRU (recently used entries are
// copied forward on a hit) without a list per entry.
type termCache struct {
	mu       sync.Mutex
	cur, old map[int64]*factTerms
}

// get returns f's terms, from the cache when it holds them for f's
// current text, else computed and stored.
func (c *termCache) get(f *holomem.Fact) *factTerms {
	c.mu.Lock()
	t := c.cur[f.ID]
	if t == nil {
		if t = c.old[f.ID]; t != nil && t.matches(f) {
			c.putLocked(f.ID, t)
		}
	}
	c.mu.Unlock()
	if t != nil && t.matches(f) {
		return t
	}
	t = newFactTerms(f)
	c.mu.Lock()
	c.putLocked(f.ID, t)
	c.mu.Unlock()
	return t
}

func (c *termCache) putLocked(id int64, t *factTerms) {
	if c.cur == nil {
		c.cur = make(map[int64]*factTerms)
	}
	if len(c.cur) >= termCacheSize {
		c.old, c.cur = c.cur, make(map[int64]*factTerms, termCacheSize)
	}
	c.cur[id] = t
}

func (t *factTerms) matches(f *holomem.Fact) bool {
	return t.content == f.Content && slices.Equal(t.tags, f.Tags)
}

func newFactTerms(f *holomem.Fact) *factTerms {
	t := &factTerms{content: f.Content, tags: slices.Clone(f.Tags)}
	lt := lexindex.TermsOf(f.Content, f.Tags)
	t.n = lt.Len
	t.stems = make([]stemCount, len(lt.Stems))
	for i, sc := range lt.Stems {
		t.stems[i] = stemCount{stem: sc.Stem, count: float64(sc.Count)}
	}
	t.contentSet = lt.ContentSet
	return t
}
