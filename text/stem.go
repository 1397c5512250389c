package text

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

type script uint8

const (
	scriptOther script = iota
	scriptLatin
	scriptCyrillic
)

// scriptOf returns the script of a token whose letters are all Latin or all
// Cyrillic (combining marks allowed), and scriptOther for anything else:
// mixed scripts, digits, other alphabets, an empty token.
func scriptOf(tok string) script {
	sc := scriptOther
	for _, r := range tok {
		var this script
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			this = scriptLatin
		case r < utf8.RuneSelf:
			return scriptOther // digits and anything else ASCII
		case r >= 0x400 && r <= 0x4FF && unicode.IsLetter(r):
			this = scriptCyrillic
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) && unicode.Is(unicode.Latin, r):
			this = scriptLatin
		case unicode.IsLetter(r) && unicode.Is(unicode.Cyrillic, r):
			this = scriptCyrillic
		default:
			return scriptOther
		}
		if sc != scriptOther && sc != this {
			return scriptOther
		}
		sc = this
	}
	return sc
}

// Stem returns the Snowball stem of a token: the Russian stemmer for
// Cyrillic tokens (Ukrainian and other Cyrillic languages included), the
// English stemmer for Latin ones. Tokens in other scripts, mixed scripts or
// with digits are returned unchanged. Stem expects a normalised token (see
// [Tokens]); it never panics and never returns an empty string for a
// non-empty token. The stem starts with the token's first rune (both
// stemmers only rewrite endings; tokens hold no apostrophes), which lets
// callers skip stemming tokens that cannot stem to a given word.
func Stem(tok string) string {
	sc := scriptOf(tok)
	if sc == scriptOther || utf8.RuneCountInString(tok) <= 2 {
		return tok
	}
	if len(tok) > maxCachedStem {
		return stem(sc, tok)
	}
	tab := stemTable()
	slot := &tab[maphash.String(stemSeed, tok)&uint64(len(tab)-1)]
	if e := slot.Load(); e != nil && e.tok == tok {
		return e.stem
	}
	st := stem(sc, tok)
	slot.Store(&stemEntry{tok: tok, stem: st})
	if len(tab) < stemCacheSize && stemMisses.Add(1) == stemGrowAfter {
		big := make([]atomic.Pointer[stemEntry], stemCacheSize)
		stemCache.Store(&big)
	}
	return st
}

// The stem cache is direct-mapped and lock-free: a slot holds the last
// token hashed to it. Snowball costs microseconds per word and a fact's
// vocabulary repeats, so IndexText over an import is mostly cache hits.
// The cache only memoises a pure function, so results never depend on it.
// 32k slots (256 KB of pointers, entries made as words come) hold a working
// vocabulary: at 4k, recall's re-scoring of 50 candidates of Zipf text
// missed on most words and spent a fifth of its time in Snowball.
//
// A process makes 1k slots at its first stem and takes the 32k after
// stemGrowAfter misses (the entries so far are dropped: a cache): a
// one-shot process that stems a prompt and a few dozen candidates touched
// a page of the big table per word, ~50 page faults, more than the
// stemming cost.
const (
	stemCacheSize  = 1 << 15 // slots; a power of two
	stemCacheStart = 1 << 10 // slots at start; a power of two
	stemGrowAfter  = 2048    // misses before the cache grows
	maxCachedStem  = 64      // bytes; longer tokens are rare and not cached
)

type stemEntry struct{ tok, stem string }

var (
	stemCache  atomic.Pointer[[]atomic.Pointer[stemEntry]]
	stemMisses atomic.Int64
	stemSeed   = maphash.MakeSeed()
)

// stemTable returns the cache's current table, making the small one on
// first use rather than at start: a process that stems nothing (most
// commands) does not allocate it.
func stemTable() []atomic.Pointer[stemEntry] {
	if tab := stemCache.Load(); tab != nil {
		return *tab
	}
	small := make([]atomic.Pointer[stemEntry], stemCacheStart)
	stemCache.CompareAndSwap(nil, &small)
	return *stemCache.Load()
}

func stem(sc script, tok string) string {
	var st string
	switch sc {
	case scriptLatin:
		st = english.Stem(tok, true)
	case scriptCyrillic:
		st = russian.Stem(tok, true)
	}
	if st == "" || !utf8.ValidString(st) {
		return tok
	}
	return st
}

// IndexText returns the text the FTS5 index stores for s: the normalised
// tokens of s followed by the distinct stems that differ from their token,
// separated by single spaces. Indexing the stems lets inflected forms match
// ("россию" finds "России") while exact forms, which match both the token
// and the stem, still rank higher. IndexText is deterministic, so it can
// back a SQL function used in triggers.
func IndexText(s string) string {
	toks := Tokens(s)
	if len(toks) == 0 {
		return ""
	}
	n := len(toks) - 1
	for _, t := range toks {
		n += len(t)
	}
	var b strings.Builder
	b.Grow(n + n/2)
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	// Stems are deduplicated: a linear scan while few, a map beyond.
	var added []string
	var seen map[string]struct{}
	for _, t := range toks {
		st := Stem(t)
		if st == t {
			continue
		}
		if seen != nil {
			if _, ok := seen[st]; ok {
				continue
			}
			seen[st] = struct{}{}
		} else {
			if contains(added, st) {
				continue
			}
			added = append(added, st)
			if len(added) > 32 {
				seen = make(map[string]struct{}, 2*len(added))
				for _, a := range added {
					seen[a] = struct{}{}
				}
			}
		}
		b.WriteByte(' ')
		b.WriteString(st)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// morphPrefixLen is how many leading letters of a Cyrillic stem
// [MorphPrefix] keeps: Snowball leaves derivations and aspect pairs with
// different stems ("развертывание" -> развертыван, "развернули" ->
// развернул), and five letters is the shortest prefix that joins them on
// the committed inflection set (eval/testdata/morph.jsonl) without joining
// unrelated words often.
const morphPrefixLen = 5

// MorphPrefix returns the prefix under which inflected and derived forms
// of a Cyrillic token are matched: the first five letters of its stem when
// the stem has at least seven (shorter stems, often names such as "алексе",
// match exactly), else "".
func MorphPrefix(tok string) string {
	if scriptOf(tok) != scriptCyrillic {
		return ""
	}
	st := Stem(tok)
	if utf8.RuneCountInString(st) <= morphPrefixLen+1 {
		return ""
	}
	i, n := 0, 0
	for n < morphPrefixLen {
		_, w := utf8.DecodeRuneInString(st[i:])
		i += w
		n++
	}
	return st[:i]
}
