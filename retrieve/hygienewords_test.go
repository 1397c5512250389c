package retrieve

import (
	"testing"

	"github.com/holomem/holomem/text"
)

func TestWordCache(t *testing.T) {
	var c wordCache
	newer := text.NewRelater("The deploy now uses 3 replicas")
	steps := []struct {
		id      int64
		content string
	}{
		{1, "The deploy uses 2 replicas"},
		{1, "The deploy uses 2 replicas"},            // cached
		{1, "The deploy uses 3 replicas"},            // edited: read again
		{2, "Alice prefers dark mode in the editor"}, // another fact
	}
	for _, st := range steps {
		w := c.of(st.id, st.content)
		toks := text.Tokens(st.content)
		if want := text.SortedSet(toks); w.set.Len() != len(want) || w.set.Shared(text.NewWordSet(want)) != len(want) {
			t.Errorf("%d %q: set of %d words, want %q", st.id, st.content, w.set.Len(), want)
		}
		if got, want := newer.RelateTo(w.rel, -1), newer.Relate(st.content, -1); got != want {
			t.Errorf("%d %q: relation %s, want %s", st.id, st.content, got, want)
		}
	}
	if a, b := c.of(1, "x y"), c.of(1, "x y"); a != b {
		t.Error("the same content was not cached")
	}
	// The generations bound the cache.
	for id := range int64(3 * hygieneWordsPerGen) {
		c.of(id, "some words")
	}
	if n := len(c.cur) + len(c.old); n > 2*hygieneWordsPerGen {
		t.Errorf("cache holds %d entries, bound %d", n, 2*hygieneWordsPerGen)
	}
}
