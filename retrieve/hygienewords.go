package retrieve

import (
	"sync"

	"github.com/holomem/holomem/text"
)

// hygieneWordsPerGen bounds each of the word cache's two generations
// (~1 KB a fact: ~4 MB in all).
const hygieneWordsPerGen = 2048

// factWords is what hygiene compares a new fact with: a candidate's
// sorted distinct tokens (Jaccard) and its content words for text.Relate.
// Both are read-only once built.
type factWords struct {
	content string
	set     text.WordSet
	rel     *text.Relater
}

// wordCache keeps candidates' factWords by id. Consecutive writes check
// mostly the same candidates (an entity's newest facts, the facts sharing
// rare words), and tokenising and stemming each of them again was a sixth
// of an add. An entry is used only while the fact's content is what it was
// built from, so an edited fact is read again; two generations bound it
// like the row cache.
type wordCache struct {
	mu       sync.Mutex
	cur, old map[int64]*factWords
}

// of returns the words of the fact id with content.
func (c *wordCache) of(id int64, content string) *factWords {
	c.mu.Lock()
	w := c.cur[id]
	if w == nil {
		if w = c.old[id]; w != nil {
			c.putLocked(id, w)
		}
	}
	c.mu.Unlock()
	if w != nil && w.content == content {
		return w
	}
	toks := text.Tokens(content)
	w = &factWords{content: content, set: text.NewWordSet(toks), rel: text.NewRelaterText(content, toks)}
	c.mu.Lock()
	c.putLocked(id, w)
	c.mu.Unlock()
	return w
}

func (c *wordCache) putLocked(id int64, w *factWords) {
	if c.cur == nil || len(c.cur) >= hygieneWordsPerGen {
		c.old, c.cur = c.cur, make(map[int64]*factWords, hygieneWordsPerGen)
	}
	c.cur[id] = w
}
