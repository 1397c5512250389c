package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

// PostgreSQL limits a lexeme to 2047 bytes, a position to 16383 and the
// positions of one lexeme to 256.
const (
	maxLexemeBytes   = 2000
	maxPosition      = 16383
	maxLexemeRepeats = 256
)

// lexeme turns a token of package text into the lexeme both the index and
// the queries use: diacritics removed as SQLite's index removes them
// (sqlstore.FoldDiacritics, so "cafe" finds "café") and cut to
// PostgreSQL's lexeme limit at a rune boundary. "" means skip.
func lexeme(tok string) string {
	tok = sqlstore.FoldDiacritics(tok)
	if len(tok) > maxLexemeBytes {
		n := maxLexemeBytes
		for n > 0 && !utf8.RuneStart(tok[n]) {
			n--
		}
		tok = tok[:n]
	}
	return tok
}

// tsvectorText returns the text form of the tsvector stored for a fact:
// every token of content and then of tags at its position, with its
// Snowball stem at the same position when the stem differs. It is built
// here, from package text, so that both backends index the same words; the
// server's text search configurations are never used. Every lexeme is
// quoted, so no character of the content is read as tsvector syntax.
func tsvectorText(content, tags string) string {
	pos := map[string][]int{}
	var order []string
	add := func(lex string, p int) {
		if lex == "" {
			return
		}
		ps, ok := pos[lex]
		if !ok {
			order = append(order, lex)
		}
		if len(ps) >= maxLexemeRepeats || (len(ps) > 0 && ps[len(ps)-1] == p) {
			return
		}
		pos[lex] = append(ps, p)
	}
	p := 0
	for _, s := range []string{content, tags} {
		for _, tok := range text.Tokens(s) {
			p = min(p+1, maxPosition)
			lex := lexeme(tok)
			add(lex, p)
			if st := lexeme(text.Stem(tok)); st != lex {
				add(st, p)
			}
		}
	}
	slices.Sort(order) // deterministic text; PostgreSQL sorts lexemes anyway
	var b strings.Builder
	for i, lex := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeLexeme(&b, lex)
		for j, q := range pos[lex] {
			if j == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(q))
		}
	}
	return b.String()
}

// writeLexeme writes lex as a quoted tsvector/tsquery lexeme: in single
// quotes, with quotes doubled and backslashes escaped.
func writeLexeme(b *strings.Builder, lex string) {
	b.WriteByte('\'')
	for _, r := range lex {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
}

// queryTerm is one distinct query token: its lexeme and its stem's.
type queryTerm struct{ lex, stem string }

// queryTerms returns the distinct tokens of q (at most text.MaxMatchTokens),
// in query order, as lexemes.
func queryTerms(q string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	for _, tok := range text.Tokens(q) {
		if len(out) >= text.MaxMatchTokens {
			break
		}
		lex := lexeme(tok)
		if lex == "" || seen[lex] {
			continue
		}
		seen[lex] = true
		out = append(out, queryTerm{lex: lex, stem: lexeme(text.Stem(tok))})
	}
	return out
}

// tsquery builds the tsquery text for terms joined by op ("&" or "|"):
// each term matches its token or its stem, as text.MatchAll does for FTS5.
// Lexemes are quoted (writeLexeme) and the operators are ours, so user
// text is never parsed as tsquery syntax. "" when there are no terms.
func tsquery(terms []queryTerm, op string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" " + op + " ")
		}
		if t.stem == "" || t.stem == t.lex {
			writeLexeme(&b, t.lex)
			continue
		}
		b.WriteByte('(')
		writeLexeme(&b, t.lex)
		b.WriteString(" | ")
		writeLexeme(&b, t.stem)
		b.WriteByte(')')
	}
	return b.String()
}

// ftsProbe exercises everything the index text depends on: case, English
// and Russian stems, ё, diacritics, digits and punctuation.
const ftsProbe = "Deploying deployed services; Россия России ёлка Ёж café naïve v1.2 snake_case CamelCase #tag"

// ftsFingerprintKey is the meta key (reserved for this package) holding the
// fingerprint of the tsvector builder the stored vectors were made with.
const ftsFingerprintKey = "postgres.fts_fingerprint"

func ftsFingerprint() string {
	sum := sha256.Sum256([]byte(tsvectorText(ftsProbe, "tag other")))
	return hex.EncodeToString(sum[:8])
}

// syncFTS recomputes the stored tsvectors when package text changed what
// it indexes since they were built.
func (s *Store) syncFTS(ctx context.Context) error {
	got, err := s.Meta(ctx, ftsFingerprintKey)
	if err == nil && got == ftsFingerprint() {
		return nil
	}
	if err != nil && !errors.Is(err, holomem.ErrNotFound) {
		return err
	}
	return s.Reindex(ctx)
}

// Reindex recomputes every fact's tsvector, in batches of 1000 facts per
// transaction. Open does this by itself when the tokeniser or stemmer
// changed; it takes about as long as importing the facts again.
func (s *Store) Reindex(ctx context.Context) error {
	var after int64
	for {
		n := 0
		err := s.update(ctx, func(w *wtx) error {
			rows, err := w.query("SELECT id, content, tags FROM facts WHERE id > $1 ORDER BY id LIMIT 1000", after)
			if err != nil {
				return err
			}
			var ids []int64
			var vecs []string
			for rows.Next() {
				var id int64
				var content, tags string
				if err := rows.Scan(&id, &content, &tags); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
				vecs = append(vecs, tsvectorText(content, tags))
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			n = len(ids)
			if n == 0 {
				return nil
			}
			if _, err := w.exec(`UPDATE fact_search f SET fts = v.fts::tsvector
				FROM unnest($1::bigint[], $2::text[]) AS v(id, fts) WHERE f.id = v.id`, ids, vecs); err != nil {
				return err
			}
			after = ids[len(ids)-1]
			return nil
		})
		if err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
		if n == 0 {
			break
		}
	}
	if err := s.SetMeta(ctx, ftsFingerprintKey, ftsFingerprint()); err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return nil
}
