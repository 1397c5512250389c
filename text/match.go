package text

import "strings"

// MaxMatchTokens is how many distinct query tokens [MatchAll] and
// [MatchAny] use; the rest of a long query is ignored.
const MaxMatchTokens = 32

// MatchAll returns an FTS5 MATCH expression that requires every distinct
// token of query (up to [MaxMatchTokens]), each in its exact or stemmed
// form: `("deploying" OR "deploy") AND "nginx"`. User text is always data:
// every term is a double-quoted string, so FTS5 operators in the query
// (AND, NEAR, quotes, -, *, ^, column filters) are never interpreted.
// MatchAll returns "" when the query has no tokens; the caller then skips
// full-text search.
func MatchAll(query string) string { return match(query, " AND ") }

// MatchAny is [MatchAll] with the terms joined by OR: a relaxed query for
// when requiring every term finds too little.
func MatchAny(query string) string { return match(query, " OR ") }

func match(query, op string) string {
	var b strings.Builder
	var seen []string
	eachToken(query, func(tok string) {
		if len(seen) >= MaxMatchTokens || contains(seen, tok) {
			return
		}
		seen = append(seen, tok)
		if b.Len() > 0 {
			b.WriteString(op)
		}
		st, pre := Stem(tok), MorphPrefix(tok)
		if st == tok && pre == "" {
			writeQuoted(&b, tok)
			return
		}
		b.WriteByte('(')
		writeQuoted(&b, tok)
		if st != tok {
			b.WriteString(" OR ")
			writeQuoted(&b, st)
		}
		if pre != "" {
			// Other inflections and derivations of a Cyrillic word.
			b.WriteString(" OR ")
			writeQuoted(&b, pre)
			b.WriteString(" *")
		}
		b.WriteByte(')')
	})
	return b.String()
}

// writeQuoted writes s as an FTS5 string: in double quotes, with embedded
// double quotes doubled.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b.WriteString(s[:i+1])
		b.WriteByte('"')
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('"')
}
