package vec

import "slices"

// TopK keeps the k best results pushed into it, in the order of [Better].
// The zero value is not usable; call [NewTopK]. A TopK is not safe for
// concurrent use.
type TopK struct {
	k int
	h []Result // heap whose root is the worst kept result
}

// NewTopK returns an empty TopK keeping at most k results.
func NewTopK(k int) *TopK {
	return &TopK{k: k, h: make([]Result, 0, max(k, 0))}
}

// Len returns how many results are kept.
func (t *TopK) Len() int { return len(t.h) }

// Full reports whether k results are kept.
func (t *TopK) Full() bool { return len(t.h) >= t.k }

// Worst returns the worst kept result; it is only meaningful when Len() > 0.
func (t *TopK) Worst() Result { return t.h[0] }

// Push offers r and keeps it if it is among the k best seen so far.
func (t *TopK) Push(r Result) {
	if t.k <= 0 {
		return
	}
	if len(t.h) < t.k {
		t.h = append(t.h, r)
		t.up(len(t.h) - 1)
		return
	}
	if !Better(r, t.h[0]) {
		return
	}
	t.h[0] = r
	t.down(0)
}

// Sorted returns the kept results, best first. It leaves the TopK empty.
func (t *TopK) Sorted() []Result {
	out := t.h
	t.h = nil
	slices.SortFunc(out, compareResults)
	return out
}

func compareResults(a, b Result) int {
	switch {
	case Better(a, b):
		return -1
	case Better(b, a):
		return 1
	}
	return 0
}

// SortResults sorts rs best first by [Better].
func SortResults(rs []Result) { slices.SortFunc(rs, compareResults) }

func (t *TopK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !Better(t.h[p], t.h[i]) { // parent already worse or equal
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *TopK) down(i int) {
	n := len(t.h)
	for {
		w := i
		l, r := 2*i+1, 2*i+2
		if l < n && Better(t.h[w], t.h[l]) {
			w = l
		}
		if r < n && Better(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[w], t.h[i] = t.h[i], t.h[w]
		i = w
	}
}
