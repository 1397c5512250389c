package text

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet and passage sizes, in runes (characters). A token is estimated
// as 4 runes (see [EstimateTokens]), so a passage is about 300 tokens and
// a snippet about 80.
const (
	// SnippetRunes bounds [Snippet.Text], ellipses included.
	SnippetRunes = 320
	// PassageRunes bounds one passage of a long text: recall scores and
	// shows a long fact by its best passage, not by its whole length.
	PassageRunes = 1200
)

// Ellipsis marks where a snippet cuts its text.
const Ellipsis = "…"

// EstimateTokens is the token estimate every door budgets with: runes / 4,
// rounded up. It is an estimate (model tokenizers differ), deliberately
// simple so that a caller can check it.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// Snippet is the part of a text shown for a query: the window of at most
// [SnippetRunes] runes where the query's words are densest, cut at word
// boundaries, with [Ellipsis] where text was cut and whitespace runs
// collapsed to one space (a snippet is one line).
type Snippet struct {
	Text string `json:"snippet"`
	// Matches are the byte offsets [start, end) in Text of the words that
	// matched the query (the same stems recall matches), in order.
	Matches [][2]int `json:"matches,omitempty"`
	// Passage is the passage the snippet was taken from, set only for a
	// text longer than one passage ([PassageRunes]) in which a query word
	// occurs.
	Passage *Passage `json:"passage,omitempty"`
}

// Passage is one piece of a long text: the pieces are consecutive, at
// most [PassageRunes] runes each, cut at paragraph, line, sentence or word
// boundaries. Start and End are byte offsets in the text.
type Passage struct {
	Index int `json:"index"`
	Start int `json:"start"`
	End   int `json:"end"`
}

// tokSpan is one token of the text: its byte and rune span, and the index
// of the query stem it matches (-1: none).
type tokSpan struct {
	start, end   int // bytes
	rstart, rend int // runes
	stem         int
}

// MakeSnippet returns the snippet of s for a query whose stems (see
// [Stem], on the query's [ContentTokens]) are given. Without stems, or
// when none occurs in s, the snippet is the start of s.
func MakeSnippet(s string, stems []string) Snippet {
	return makeSnippet(s, stems, nil)
}

// MakeSnippetIn is [MakeSnippet] within the given passage of s (one of
// [Passages]), which the caller chose (recall: by BM25).
func MakeSnippetIn(s string, stems []string, p Passage) Snippet {
	if p.Start < 0 || p.End > len(s) || p.Start >= p.End {
		return MakeSnippet(s, stems)
	}
	return makeSnippet(s, stems, &p)
}

func makeSnippet(s string, stems []string, pass *Passage) Snippet {
	toks := matchTokens(s, stems)
	lo, hi := 0, len(s)
	if pass == nil && utf8.RuneCountInString(s) > PassageRunes && len(toks) > 0 {
		p := bestPassage(s, toks, len(stems))
		pass = &p
	}
	if pass != nil {
		lo, hi = pass.Start, pass.End
		toks = slices.DeleteFunc(toks, func(t tokSpan) bool { return t.start < lo || t.end > hi })
	}
	start, end := window(s, toks, lo, hi, len(stems))
	text, matches := render(s, start, end, toks)
	return Snippet{Text: text, Matches: matches, Passage: pass}
}

// matchTokens returns the tokens of s that match one of stems, with their
// rune offsets.
func matchTokens(s string, stems []string) []tokSpan {
	if len(stems) == 0 {
		return nil
	}
	var first [256]bool
	for _, st := range stems {
		if st != "" {
			first[st[0]] = true
		}
	}
	var out []tokSpan
	prev, runes := 0, 0
	eachTokenAt(s, func(start, end int, tok string) {
		// A stem starts with its token's first rune (Stem's contract), so
		// most tokens need no stemming.
		if !first[tok[0]] {
			return
		}
		i := slices.Index(stems, Stem(tok))
		if i < 0 {
			return
		}
		runes += utf8.RuneCountInString(s[prev:start])
		rs := runes
		runes += utf8.RuneCountInString(s[start:end])
		prev = end
		out = append(out, tokSpan{start: start, end: end, rstart: rs, rend: runes, stem: i})
	})
	return out
}

// Passages splits s into consecutive pieces of at most [PassageRunes]
// runes, cut at paragraph, line, sentence or word boundaries.
func Passages(s string) []Passage {
	var out []Passage
	for p := 0; p < len(s); {
		q := advanceRunes(s, p, PassageRunes)
		if q < len(s) {
			q = cutPoint(s, advanceRunes(s, p, PassageRunes/2), q)
		}
		out = append(out, Passage{Index: len(out), Start: p, End: q})
		p = q
	}
	return out
}

// cutPoint returns where to end a piece that may end anywhere in s[lo:hi]:
// after the last paragraph break, else line break, else sentence end, else
// space; hi when there is none.
func cutPoint(s string, lo, hi int) int {
	seg := s[lo:hi]
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(seg, sep); i >= 0 {
			return lo + i + len(sep)
		}
	}
	return hi
}

// advanceRunes returns the byte offset n runes after byte offset p.
func advanceRunes(s string, p, n int) int {
	for ; n > 0 && p < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[p:])
		p += w
	}
	return p
}

// bestPassage is the passage holding the most distinct query stems, then
// the most matches, then the first.
func bestPassage(s string, toks []tokSpan, nstems int) Passage {
	ps := Passages(s)
	best, bestD, bestN := ps[0], -1, -1
	seen := make([]int, nstems)
	j := 0
	for _, p := range ps {
		d, n := 0, 0
		for ; j < len(toks) && toks[j].start < p.End; j++ {
			if seen[toks[j].stem] != p.Index+1 {
				seen[toks[j].stem] = p.Index + 1
				d++
			}
			n++
		}
		if d > bestD || (d == bestD && n > bestN) {
			best, bestD, bestN = p, d, n
		}
	}
	return best
}

// window returns the byte span of s[lo:hi] to show: at most SnippetRunes-2
// runes (room for two ellipses) holding the most distinct stems, then the
// most matches, then the earliest, with some context before the first
// match; cut at word boundaries.
func window(s string, toks []tokSpan, lo, hi, nstems int) (int, int) {
	const w = SnippetRunes - 2 // room for two one-rune ellipses
	if len(toks) == 0 {
		return lo, cutEnd(s, lo, advanceRunes(s, lo, w), hi)
	}
	count := make([]int, nstems)
	distinct := 0
	bi, bj, bd, bn := 0, 0, -1, -1
	j := 0
	for i := range toks {
		for j < len(toks) && toks[j].rend-toks[i].rstart <= w {
			if count[toks[j].stem] == 0 {
				distinct++
			}
			count[toks[j].stem]++
			j++
		}
		if j > i && (distinct > bd || (distinct == bd && j-i > bn)) {
			bi, bj, bd, bn = i, j, distinct, j-i
		}
		if j > i {
			count[toks[i].stem]--
			if count[toks[i].stem] == 0 {
				distinct--
			}
		} else {
			j = i + 1 // a token longer than the window: skip it
		}
	}
	if bd < 0 { // every matched token is longer than a snippet
		start := toks[0].start
		return start, cutEnd(s, start, advanceRunes(s, start, w), hi)
	}
	// Slack before the first match: a quarter of what the matches leave,
	// snapped forward to a word start.
	span := toks[bj-1].rend - toks[bi].rstart
	if bj == bi {
		span = 0
	}
	lead := (w - span) / 4
	start := toks[bi].start
	for k := 0; k < lead && start > lo; k++ {
		_, n := utf8.DecodeLastRuneInString(s[:start])
		start -= n
	}
	if start > lo {
		start = wordStart(s, start, toks[bi].start)
		// Better: the start of the first match's sentence, when it is
		// within the lead.
		lead := s[start:toks[bi].start]
		if i := max(strings.LastIndex(lead, "\n"), strings.LastIndex(lead, ". ")+1); i > 0 {
			start += i + 1
		}
	}
	return start, cutEnd(s, start, advanceRunes(s, start, w), hi)
}

// wordStart moves p forward to the start of a word (after a space), but not
// past limit.
func wordStart(s string, p, limit int) int {
	r, _ := utf8.DecodeLastRuneInString(s[:p])
	if unicode.IsSpace(r) {
		return p
	}
	if i := strings.IndexFunc(s[p:limit], unicode.IsSpace); i >= 0 {
		return p + i
	}
	return limit
}

// cutEnd moves end (< hi) back to the end of a word, unless that would
// leave nothing after start.
func cutEnd(s string, start, end, hi int) int {
	end = min(end, hi)
	if end >= hi || end == len(s) {
		return end
	}
	r, _ := utf8.DecodeRuneInString(s[end:])
	if unicode.IsSpace(r) {
		return end
	}
	if i := strings.LastIndexFunc(s[start:end], unicode.IsSpace); i > 0 {
		return start + i
	}
	return end
}

// render writes s[start:end] as one line (whitespace runs become one
// space), with ellipses where s goes on, and the matches' offsets in it.
func render(s string, start, end int, toks []tokSpan) (string, [][2]int) {
	var b strings.Builder
	b.Grow(end - start + 2*len(Ellipsis))
	if start > 0 {
		b.WriteString(Ellipsis)
	}
	var matches [][2]int
	k := 0
	for k < len(toks) && toks[k].start < start {
		k++
	}
	space, wrote := false, false
	for i := start; i < end; {
		if k < len(toks) && i == toks[k].start && toks[k].end <= end {
			if space && wrote {
				b.WriteByte(' ')
			}
			space, wrote = false, true
			m := [2]int{b.Len(), 0}
			b.WriteString(s[toks[k].start:toks[k].end])
			m[1] = b.Len()
			matches = append(matches, m)
			i = toks[k].end
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && wrote {
			b.WriteByte(' ')
		}
		space, wrote = false, true
		b.WriteRune(r)
	}
	if end < len(s) {
		b.WriteString(Ellipsis)
	}
	return b.String(), matches
}

// QueryStems are the stems recall matches for a query: the stems of its
// [ContentTokens], sorted, without repeats.
func QueryStems(q string) []string {
	toks := ContentTokens(q)
	for i, t := range toks {
		toks[i] = Stem(t)
	}
	return SortedSet(toks)
}
