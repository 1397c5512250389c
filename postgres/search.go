package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// ftsSearch is the full-text query. $1 is a tsquery built by tsquery()
// (quoted lexemes joined by our own operators) and bound as a parameter.
// ts_rank with normalisation 1 (divide by 1 + log of the document length)
// weighs how often the terms occur against how long the fact is, like
// BM25 without its collection statistics; SearchText then scales the
// scores to 0..1 as the SQLite store does.
const (
	ftsSearch = `SELECT id, ts_rank(fts, $1::tsquery, 1) AS x FROM fact_search
	WHERE fts @@ $1::tsquery AND namespace = $2 AND live
	ORDER BY x DESC, id LIMIT $3`
	ftsSearchSuperseded = `SELECT id, ts_rank(fts, $1::tsquery, 1) AS x FROM fact_search
	WHERE fts @@ $1::tsquery AND namespace = $2
	ORDER BY x DESC, id LIMIT $3`
)

// SearchText runs the full-text channel with the SQLite store's contract:
// all terms first, then any term to fill the limit; all-term hits score
// x / max x (the best is 1), any-term hits 0.5 * x / max x of their own
// set; ties broken by id. The query is data: its tokens become quoted
// lexemes, never tsquery syntax. Returns ErrInvalid for a query that is
// not UTF-8 or longer than [holomem.MaxQueryBytes].
func (s *Store) SearchText(ctx context.Context, namespace, query string, limit int, opts ...holomem.SearchOption) ([]holomem.TextMatch, error) {
	superseded := holomem.ApplySearchOptions(opts).IncludeSuperseded
	limit, err := sqlstore.CheckSearch(query, limit)
	if err != nil {
		return nil, err
	}
	namespace = defaultNamespace(namespace)
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	var out []holomem.TextMatch
	err = s.readOne(ctx, func(tx querier) error {
		run := func(q string, n int) ([]holomem.TextMatch, error) {
			return ftsQuery(ctx, tx, q, namespace, superseded, n)
		}
		var err error
		out, err = sqlstore.SearchAllThenAny(tsquery(terms, "&"), limit, run, func() (string, error) {
			if len(terms) == 1 {
				return "", nil
			}
			relaxed, err := s.selectiveTerms(ctx, tx, terms, namespace)
			return tsquery(relaxed, "|"), err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	return out, nil
}

// ftsQuery returns hits with the raw ts_rank in Score, best first.
func ftsQuery(ctx context.Context, tx querier, q, namespace string, superseded bool, limit int) ([]holomem.TextMatch, error) {
	sql := ftsSearch
	if superseded {
		sql = ftsSearchSuperseded
	}
	rows, err := tx.Query(ctx, sql, q, namespace, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []holomem.TextMatch
	for rows.Next() {
		var m holomem.TextMatch
		var x float32
		if err := rows.Scan(&m.ID, &x); err != nil {
			return nil, err
		}
		m.Score = float64(x)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Relaxed-search pruning, as on SQLite: a word in more than commonShare of
// the namespace's live facts (and in more than commonMin) is left out of
// the any-term search; the rarest word with a match is always kept.
const (
	commonShare = 0.05
	commonMin   = 500
	// liveTTL is how long a namespace's live fact count is reused: the
	// threshold needs its size, not its exact size.
	liveTTL = 30 * time.Second
)

type liveCount struct {
	n  int64
	at time.Time
}

// selectiveTerms returns the terms selective enough for the any-term
// search, in query order. Document frequencies come from dfCache or, for
// the terms it lacks, from one statement that counts each term's live
// facts in the namespace only up to the threshold (LIMIT), so a common
// word costs a bounded index read once per dfTTL.
func (s *Store) selectiveTerms(ctx context.Context, tx querier, terms []queryTerm, namespace string) ([]queryTerm, error) {
	live, err := s.liveFacts(ctx, tx, namespace)
	if err != nil {
		return nil, err
	}
	maxDF := max(int64(commonMin), int64(float64(live)*commonShare))
	if live <= maxDF {
		return terms, nil // no word can be in more than maxDF facts
	}
	dfs, err := s.docFreqs(ctx, tx, terms, namespace, maxDF+1)
	if err != nil {
		return nil, err
	}
	var kept []queryTerm
	rarest, rarestDF := -1, int64(-1)
	for i, t := range terms {
		df := dfs[i]
		if df == 0 {
			continue
		}
		if df <= maxDF {
			kept = append(kept, t)
		}
		if rarestDF < 0 || df < rarestDF {
			rarest, rarestDF = i, df
		}
	}
	if len(kept) == 0 {
		if rarest < 0 {
			return terms, nil
		}
		kept = []queryTerm{terms[rarest]}
	}
	return kept, nil
}

// dfTTL is how long a counted document frequency is reused; dfCacheMax
// bounds the cache (it is emptied when full).
const (
	dfTTL      = time.Minute
	dfCacheMax = 20_000
)

type dfKey struct {
	namespace, query string
	cap              int64
}

type dfEntry struct {
	n  int64
	at time.Time
}

// docFreqs returns, for each term, the number of live facts of the
// namespace that contain it, counted up to limit.
func (s *Store) docFreqs(ctx context.Context, tx querier, terms []queryTerm, namespace string, limit int64) ([]int64, error) {
	now := time.Now()
	out := make([]int64, len(terms))
	var missing []int
	var qs []string
	s.mu.Lock()
	for i, t := range terms {
		q := tsquery([]queryTerm{t}, "|")
		if e, ok := s.df[dfKey{namespace, q, limit}]; ok && now.Sub(e.at) < dfTTL {
			out[i] = e.n
			continue
		}
		missing = append(missing, i)
		qs = append(qs, q)
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT t.i, (SELECT count(*) FROM (SELECT 1 FROM fact_search
			WHERE fts @@ t.q::tsquery AND namespace = $2 AND live LIMIT $3) s)
		FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i)`, qs, namespace, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := make([]int64, len(qs))
	for rows.Next() {
		var i, n int64
		if err := rows.Scan(&i, &n); err != nil {
			return nil, err
		}
		got[i-1] = n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.df) > dfCacheMax {
		clear(s.df)
	}
	for j, i := range missing {
		out[i] = got[j]
		s.df[dfKey{namespace, qs[j], limit}] = dfEntry{n: got[j], at: now}
	}
	s.mu.Unlock()
	return out, nil
}

// Counts read from fact_counts (migration 0005), which triggers keep as
// fact_search changes: at most 16 rows per namespace, never a scan.
const (
	qLiveFacts  = "SELECT coalesce(sum(live), 0)::bigint FROM fact_counts WHERE namespace = $1"
	qAllFacts   = "SELECT coalesce(sum(facts), 0)::bigint FROM fact_counts"
	qNamespaces = "SELECT namespace FROM fact_counts GROUP BY namespace HAVING sum(facts) > 0 ORDER BY namespace"
)

// liveFacts returns the namespace's number of live facts, cached for liveTTL.
func (s *Store) liveFacts(ctx context.Context, tx querier, namespace string) (int64, error) {
	now := time.Now()
	s.mu.Lock()
	c, ok := s.live[namespace]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < liveTTL {
		return c.n, nil
	}
	var n int64
	if err := tx.QueryRow(ctx, qLiveFacts, namespace).Scan(&n); err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.live[namespace] = liveCount{n: n, at: now}
	s.mu.Unlock()
	return n, nil
}

// TermStats implements [holomem.TermStatser] as the SQLite store does, so
// recall re-scores its candidates with the same BM25 on both backends: the
// number of facts and, for each term, how many facts' tsvectors hold it as
// a token or a stem (every namespace, superseded facts included, as
// FTS5's vocabulary counts). Counts are reused for dfTTL, like docFreqs':
// counting a frequent stem reads a large part of the GIN index, and IDF
// barely moves in a minute.
func (s *Store) TermStats(ctx context.Context, terms []string) (int64, []int64, error) {
	const all = "\x00all" // with cap -1, a key docFreqs never makes
	now := time.Now()
	df := make([]int64, len(terms))
	docs := int64(-1)
	var missing []int
	var qs []string
	s.mu.Lock()
	if e, ok := s.df[dfKey{all, "", -1}]; ok && now.Sub(e.at) < dfTTL {
		docs = e.n
	}
	for i, t := range terms {
		var b strings.Builder
		writeLexeme(&b, lexeme(t))
		q := b.String()
		if e, ok := s.df[dfKey{all, q, -1}]; ok && now.Sub(e.at) < dfTTL {
			df[i] = e.n
			continue
		}
		missing = append(missing, i)
		qs = append(qs, q)
	}
	s.mu.Unlock()
	if docs >= 0 && len(missing) == 0 {
		return docs, df, nil
	}
	got := make([]int64, len(qs))
	err := s.read(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, qAllFacts).Scan(&docs); err != nil {
			return err
		}
		if len(qs) == 0 {
			return nil
		}
		rows, err := tx.Query(ctx, `SELECT t.i, (SELECT count(*) FROM fact_search WHERE fts @@ t.q::tsquery)
			FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i)`, qs)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var i, n int64
			if err := rows.Scan(&i, &n); err != nil {
				return err
			}
			got[i-1] = n
		}
		return rows.Err()
	})
	if err != nil {
		return 0, nil, fmt.Errorf("term stats: %w", err)
	}
	s.mu.Lock()
	if len(s.df) > dfCacheMax {
		clear(s.df)
	}
	s.df[dfKey{all, "", -1}] = dfEntry{n: docs, at: now}
	for j, i := range missing {
		df[i] = got[j]
		s.df[dfKey{all, qs[j], -1}] = dfEntry{n: got[j], at: now}
	}
	s.mu.Unlock()
	return docs, df, nil
}

// FactIDsWithWords returns, in id order, the ids of the namespace's live
// facts below beforeID (0: no bound) whose tsvector holds every one of
// words and a lexeme starting with each of prefixes (see
// [holomem.WordFinder]).
func (s *Store) FactIDsWithWords(ctx context.Context, namespace string, words, prefixes []string, beforeID int64) ([]int64, error) {
	namespace = defaultNamespace(namespace)
	var q strings.Builder
	for i, list := range [][]string{words, prefixes} {
		for _, w := range list {
			lex := lexeme(strings.TrimSpace(w))
			if lex == "" {
				continue
			}
			if q.Len() > 0 {
				q.WriteString(" & ")
			}
			writeLexeme(&q, lex)
			if i == 1 {
				q.WriteString(":*")
			}
		}
	}
	if q.Len() == 0 {
		return nil, nil
	}
	if beforeID <= 0 {
		beforeID = math.MaxInt64
	}
	var ids []int64
	err := s.readOne(ctx, func(tx querier) error {
		rows, err := tx.Query(ctx, `SELECT id FROM fact_search WHERE fts @@ $1::tsquery AND namespace = $2 AND live AND id < $3 ORDER BY id`,
			q.String(), namespace, beforeID)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("facts with words: %w", err)
	}
	return ids, nil
}
