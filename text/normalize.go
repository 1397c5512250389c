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
// space collapsed to one space, and each Cyrillic word cut to its name stem
// (see ruNameStem), so "Алексей", "у Алексея" and "с Алексеем" are one
// entity. Two names with the same key are the same entity.
func EntityKey(name string) string {
	if isNormalASCII(name) && strings.IndexByte(name, ' ') < 0 {
		return name // one normalised ASCII word: the common case, unchanged
	}
	f := strings.Fields(Normalize(name))
	for i, w := range f {
		if strings.ContainsRune(w, '-') {
			parts := strings.Split(w, "-")
			for j, p := range parts {
				parts[j] = ruNameStem(p)
			}
			f[i] = strings.Join(parts, "-")
			continue
		}
		f[i] = ruNameStem(w)
	}
	return strings.Join(f, " ")
}

// ruCaseEndings are the case endings of Russian nouns and names that
// ruNameStem removes before the final vowels, longest first.
var ruCaseEndings = []string{"ами", "ями", "ого", "его", "ому", "ему", "ыми", "ими",
	"ом", "ем", "ой", "ей", "ам", "ям", "ах", "ях", "ою", "ею", "ым", "им", "ых", "их"}

// ruNameStem returns a normalised Cyrillic word without its case ending:
// one ending of ruCaseEndings, then trailing vowels, й and ь, keeping at
// least two letters. Snowball is not used because it stems a name's forms
// apart ("алексей" -> алекс, "алексея" -> алексе); names decline simply,
// and this joins Алексей/Алексея/Алексеем, Маша/Машей, Москва/Москве,
// Иванов/Иванова while Иван and Иванов stay apart. Other words are
// returned unchanged.
func ruNameStem(w string) string {
	if scriptOf(w) != scriptCyrillic {
		return w
	}
	rs := []rune(w)
	for _, e := range ruCaseEndings {
		if n := utf8.RuneCountInString(e); len(rs) > n+2 && strings.HasSuffix(w, e) {
			rs = rs[:len(rs)-n]
			break
		}
	}
	for len(rs) > 2 && strings.ContainsRune("аеиоуыэюяйь", rs[len(rs)-1]) {
		rs = rs[:len(rs)-1]
	}
	return string(rs)
}
