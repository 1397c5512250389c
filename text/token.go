package text

import "unicode/utf8"

// asciiToken marks the ASCII bytes that are token characters: FTS5's
// unicode61 keeps letters and digits and nothing else (no underscore).
var asciiToken = func() (t [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return t
}()

// isTokenRune reports whether FTS5's unicode61 tokenizer treats r as part
// of a token.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiToken[r]
	}
	if r >= 0x400 && r <= 0x481 { // Cyrillic letters, the common case after ASCII
		return true
	}
	return inRanges(tokenRanges, r)
}

// isVanishRune reports whether r is a token character that unicode61 with
// remove_diacritics 2 folds to nothing (a bare combining diacritic).
func isVanishRune(r rune) bool {
	return r >= 0x300 && inRanges(vanishRanges, r)
}

type runeRange struct{ lo, hi rune }

func inRanges(rs []runeRange, c rune) bool {
	i, j := 0, len(rs)
	for i < j {
		h := int(uint(i+j) >> 1)
		switch {
		case c < rs[h].lo:
			j = h
		case c > rs[h].hi:
			i = h + 1
		default:
			return true
		}
	}
	return false
}

// Tokens returns the normalised word tokens of s in order. They are exactly
// the tokens SQLite FTS5's unicode61 tokenizer makes from Normalize(s),
// except that unicode61 additionally strips diacritics (on both the indexed
// and the query side, so it does not matter for matching). A run of Han,
// Hiragana or other letters without spaces is one token, as in FTS5.
func Tokens(s string) []string {
	return AppendTokens(nil, s)
}

// AppendTokens appends the tokens of s (see [Tokens]) to dst and returns the
// extended slice, so that callers can reuse a buffer.
func AppendTokens(dst []string, s string) []string {
	eachToken(s, func(tok string) { dst = append(dst, tok) })
	return dst
}

// eachToken calls fn with every token of s in order. Tokens that need no
// case folding are substrings of s and cost no allocation.
func eachToken(s string, fn func(string)) {
	eachTokenAt(s, func(_, _ int, tok string) { fn(tok) })
}

// eachTokenAt is eachToken with each token's byte span [start, end) in s.
func eachTokenAt(s string, fn func(start, end int, tok string)) {
	var buf []byte
	for i := 0; i < len(s); {
		r, n := decodeRune(s, i)
		f := foldRune(r)
		if !isTokenRune(f) {
			i += n
			continue
		}
		start, same, vanish := i, f == r, isVanishRune(f)
		buf = utf8.AppendRune(buf[:0], f)
		i += n
		for i < len(s) {
			r, n = decodeRune(s, i)
			f = foldRune(r)
			if !isTokenRune(f) {
				break
			}
			same = same && f == r
			vanish = vanish && isVanishRune(f)
			buf = utf8.AppendRune(buf, f)
			i += n
		}
		if vanish {
			continue // FTS5 folds the whole token away and emits nothing
		}
		if same {
			fn(start, i, s[start:i])
		} else {
			fn(start, i, string(buf))
		}
	}
}
