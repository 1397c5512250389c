package sqlstore

import (
	"strings"
	"unicode"

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
			return stripMarks(tok)
		}
	}
	return tok
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
