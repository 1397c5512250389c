package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// ftsSearch is the full-text query. The MATCH expression comes from
// scopedMatch (quoted terms only) and is bound as a parameter. The scope
// column has weight 0: it filters, it does not score.
const ftsSearch = `SELECT rowid, -bm25(facts_fts, 1.0, 1.0, 0.0) AS x
	FROM facts_fts
	WHERE facts_fts MATCH ?
	ORDER BY bm25(facts_fts, 1.0, 1.0, 0.0), rowid
	LIMIT ?`

// qVocabDoc is the number of facts whose index holds a term.
const qVocabDoc = "SELECT doc FROM facts_vocab WHERE term = ?"

// searchStmts are SearchText's statements prepared on the read pool (nil
// when preparing failed: the query then runs unprepared).
type searchStmts struct{ fts, vocab *sql.Stmt }

// scopedMatch restricts the user's terms to the content and tags columns
// and adds the scope: the namespace's live token, or its live and
// superseded tokens (see migration/0003_fts_scope.sql).
func scopedMatch(terms, namespace string, superseded bool) string {
	ns := hex.EncodeToString([]byte(namespace))
	if superseded {
		return "{content tags} : (" + terms + `) AND scope : ("l` + ns + `" OR "s` + ns + `")`
	}
	return "{content tags} : (" + terms + `) AND scope : "l` + ns + `"`
}

// SearchText runs the full-text channel over the namespace's facts that
// are not superseded (unless [holomem.WithSuperseded]) (an empty namespace means [holomem.DefaultNamespace]).
// The query is data: it is turned into quoted FTS5 terms, never parsed as
// FTS5 syntax. All terms are tried first; when that finds fewer than limit
// facts, facts with any term fill the rest. Scores: x = -bm25, all-term hits
// get x / max x (the best is 1), any-term hits 0.5 * x / max x of their own
// set, so an all-term hit always outranks an any-term hit. Ties are broken
// by id. A query without searchable words gives no matches; limit <= 0
// means [holomem.DefaultLimit]. Returns ErrInvalid for a query that is not
// UTF-8 or longer than [holomem.MaxQueryBytes].
func (s *Store) SearchText(ctx context.Context, namespace, query string, limit int, opts ...holomem.SearchOption) ([]holomem.TextMatch, error) {
	so := holomem.ApplySearchOptions(opts)
	superseded := so.IncludeSuperseded
	if !utf8.ValidString(query) {
		return nil, fmt.Errorf("search text: %w: query is not valid UTF-8", holomem.ErrInvalid)
	}
	if len(query) > holomem.MaxQueryBytes {
		return nil, fmt.Errorf("search text: %w: query is %d bytes; the limit is %d", holomem.ErrInvalid, len(query), holomem.MaxQueryBytes)
	}
	if limit <= 0 {
		limit = holomem.DefaultLimit
	}
	namespace = defaultNamespace(namespace)
	all := matchAll(query)
	if all == "" {
		return nil, nil
	}
	if so.AnyTerm {
		all = matchAny(query)
	}
	st := searchStmts{fts: s.readStmt(ctx, ftsSearch), vocab: s.readStmt(ctx, qVocabDoc)}
	var out []holomem.TextMatch
	err := s.read(ctx, func(tx *sql.Tx) error {
		hits, err := ftsQuery(ctx, tx, st.fts, all, namespace, superseded, limit)
		if err != nil {
			return err
		}
		out = normalise(hits, 1)
		if len(out) >= limit || so.AnyTerm {
			return nil
		}
		relaxed, err := selectiveTerms(ctx, tx, st.vocab, query, namespace, so.MaxTermDocs)
		if err != nil {
			return err
		}
		anyQ := matchAny(relaxed)
		if anyQ == "" || anyQ == all {
			return nil
		}
		seen := make(map[int64]bool, len(out))
		for _, h := range out {
			seen[h.ID] = true
		}
		// Ask for enough to fill the limit after dropping the all-term hits.
		more, err := ftsQuery(ctx, tx, st.fts, anyQ, namespace, superseded, limit+len(out))
		if err != nil {
			return err
		}
		more = slices.DeleteFunc(more, func(h holomem.TextMatch) bool { return seen[h.ID] })
		if len(more) > limit-len(out) {
			more = more[:limit-len(out)]
		}
		out = append(out, normalise(more, 0.5)...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// ftsQuery returns hits with the raw x = -bm25 in Score, best first.
func ftsQuery(ctx context.Context, tx *sql.Tx, st *sql.Stmt, terms, namespace string, superseded bool, limit int) ([]holomem.TextMatch, error) {
	rows, err := txQuery(ctx, tx, st, ftsSearch, scopedMatch(terms, namespace, superseded), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []holomem.TextMatch
	for rows.Next() {
		var m holomem.TextMatch
		if err := rows.Scan(&m.ID, &m.Score); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// normalise maps raw scores to scale * x / max x. BM25 can be ~0 when a term
// is in most documents; then every hit gets scale.
func normalise(hits []holomem.TextMatch, scale float64) []holomem.TextMatch {
	maxX := 0.0
	for _, h := range hits {
		maxX = max(maxX, h.Score)
	}
	for i := range hits {
		if maxX > 0 {
			hits[i].Score = scale * max(0, hits[i].Score) / maxX
		} else {
			hits[i].Score = scale
		}
	}
	return hits
}

// Relaxed-search pruning: a word in more than commonShare of the
// namespace's facts (and in more than commonMin facts) is left out of the
// any-term search, because ranking every fact that contains it costs time
// in proportion to the store and adds only noise. The rarest word is
// with any match is always kept.
const (
	commonShare = 0.05
	commonMin   = 500
)

// selectiveTerms returns the query's words that are selective enough for
// the any-term search, joined by spaces, in query order.
// maxDocs > 0 lowers the bound to that many facts.
func selectiveTerms(ctx context.Context, tx *sql.Tx, st *sql.Stmt, query, namespace string, maxDocs int) (string, error) {
	toks := queryTokens(query)
	if len(toks) <= 1 {
		return query, nil
	}
	var live int64
	err := txQueryRow(ctx, tx, st, qVocabDoc, "l"+hex.EncodeToString([]byte(namespace))).Scan(&live)
	if errors.Is(err, sql.ErrNoRows) {
		return query, nil
	}
	if err != nil {
		return "", err
	}
	maxDF := max(int64(commonMin), int64(float64(live)*commonShare))
	if maxDocs > 0 {
		maxDF = min(maxDF, int64(maxDocs))
	}
	var kept []string
	rarest, rarestDF := "", int64(-1)
	for _, t := range toks {
		var df int64
		err := txQueryRow(ctx, tx, st, qVocabDoc, t).Scan(&df)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
		if df == 0 {
			continue // matches nothing either way
		}
		if df <= maxDF {
			kept = append(kept, t)
		}
		if rarestDF < 0 || df < rarestDF {
			rarest, rarestDF = t, df
		}
	}
	if len(kept) == 0 {
		if rarest == "" {
			return query, nil
		}
		kept = []string{rarest}
	}
	return strings.Join(kept, " "), nil
}

// TermStats implements [holomem.TermStatser]: the number of indexed facts
// and each term's document frequency from the fts5vocab table (index
// terms are tokens and their Snowball stems, see text.IndexText).
func (s *Store) TermStats(ctx context.Context, terms []string) (int64, []int64, error) {
	df := make([]int64, len(terms))
	var docs int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM facts").Scan(&docs); err != nil {
			return err
		}
		if len(terms) == 0 {
			return nil
		}
		// One lookup per term: fts5vocab answers "term = ?" from the index
		// and would scan the whole vocabulary for IN.
		st, err := tx.PrepareContext(ctx, "SELECT doc FROM facts_vocab WHERE term = ?")
		if err != nil {
			return err
		}
		defer st.Close()
		for i, t := range terms {
			err := st.QueryRowContext(ctx, t).Scan(&df[i])
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("term stats: %w", err)
	}
	return docs, df, nil
}
