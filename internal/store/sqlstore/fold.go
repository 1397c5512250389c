package sqlstore

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FoldDiacritics returns a token of package text as both full-text indexes
// match it: with the combining marks that follow Latin letters removed
// ("café" -> "cafe"), as SQLite's unicode61 tokenizer with
// remove_diacritics does on both the indexed and the query side, and as
// PostgreSQL's lexemes are built. Cyrillic keeps its marks (й stays й);
// ё was folded to е by package text already.
func FoldDiacritics(tok string) string {
	for i := 0; i < len(tok); i++ {
		if tok[i] >= 0x80 {
			if noLatinMarks(tok[i:]) && utf8.ValidString(tok) && norm.NFC.IsNormalString(tok) {
				return tok // Cyrillic, CJK...: nothing to strip
			}
			return stripMarks(tok)
		}
	}
	return tok
}

// noLatinMarks reports whether s has no Latin letter beyond ASCII and no
// combining mark, so that stripMarks of it (NFC already) is s itself.
func noLatinMarks(s string) bool {
	for _, r := range s {
		if r >= 0x80 && (unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Mn, r)) {
			return false
		}
	}
	return true
}

// stripMarks decomposes s and drops the combining marks that follow Latin
// letters, then recomposes what is left.
func stripMarks(s string) string {
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	latin := false
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			if latin {
				continue
			}
		} else {
			latin = unicode.Is(unicode.Latin, r)
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}
