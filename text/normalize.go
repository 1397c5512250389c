package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize returns s lower-cased (Unicode simple case mapping), with ё and Ё
// folded to е, control characters (including NUL) replaced by a space and
// invalid UTF-8 bytes replaced by U+FFFD. The result is always valid UTF-8
// and has the same number of code points as a valid input.
func Normalize(s string) string {
	if isNormalASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := decodeRune(s, i)
		i += n
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// isNormalASCII reports whether s is ASCII that Normalize leaves unchanged,
// the common case that can skip the copy.
func isNormalASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c < 0x20 || c == 0x7f || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// decodeRune decodes the rune at s[i:], mapping an invalid byte to
// U+FFFD with width 1 so that callers always make progress.
func decodeRune(s string, i int) (rune, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// foldRune is Normalize for one rune.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		switch {
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		case r < 0x20 || r == 0x7f:
			return ' '
		}
		return r
	}
	switch {
	case r >= 0x430 && r <= 0x44F: // а..я
		return r
	case r >= 0x410 && r <= 0x42F: // А..Я
		return r + 0x20
	case r == 'ё', r == 'Ё':
		return 'е'
	case unicode.IsControl(r):
		return ' '
	}
	r = unicode.ToLower(r)
	if r == 'ё' {
		r = 'е'
	}
	return r
}

// EntityKey returns the key under which stores resolve an entity name
// case-insensitively: the name normalised, trimmed, with runs of white
// space collapsed to one space. Two names with the same key are the same
// entity.
func EntityKey(name string) string {
	return strings.Join(strings.Fields(Normalize(name)), " ")
}
