package sqlite

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// ftsSearch is the full-text query. The MATCH expression comes from
// scopedMatch (quoted terms only) and is bound as a parameter. The scope
// column has weight 0: it filters, it does not score.
const ftsSearch = `SELECT rowid, -bm25(facts_fts, 1.0, 1.0, 0.0) AS x
	FROM facts_fts
	WHERE facts_fts MATCH ?
	ORDER BY bm25(facts_fts, 1.0, 1.0, 0.0), rowid
	LIMIT ?`

// The any-term queries scope by joining facts instead of the MATCH's
// scope phrase: bm25() computes each phrase's document frequency by
// walking its whole posting list on every query, and the scope phrase is
// in every fact of the namespace (10,000 steps at 10k facts, whatever the
// query). Without it that walk covers only the query's own words, which
// anyTermSearch bounds. Scores are unchanged: the scope column has weight
// 0 and bm25's lengths come from the index's size table either way.
// CROSS JOIN keeps the full-text match as the outer loop.
const (
	ftsAnyRanked = `SELECT facts_fts.rowid, -bm25(facts_fts, 1.0, 1.0, 0.0) AS x
	FROM facts_fts CROSS JOIN facts ON facts.id = facts_fts.rowid
	WHERE facts_fts MATCH ? AND facts.namespace = ? AND (? OR facts.superseded_by IS NULL)
	ORDER BY bm25(facts_fts, 1.0, 1.0, 0.0), facts_fts.rowid
	LIMIT ?`
	// ftsAnyNewest lists the newest matches without ranking them (no
	// bm25(), so no document-frequency walk either).
	ftsAnyNewest = `SELECT facts_fts.rowid, 0
	FROM facts_fts CROSS JOIN facts ON facts.id = facts_fts.rowid
	WHERE facts_fts MATCH ? AND facts.namespace = ? AND (? OR facts.superseded_by IS NULL)
	ORDER BY facts_fts.rowid DESC
	LIMIT ?`
)

// qVocabDoc is the number of facts whose index holds a term.
const qVocabDoc = "SELECT doc FROM facts_vocab WHERE term = ?"

// searchStmts are SearchText's statements prepared on the read pool (nil
// when preparing failed: the query then runs unprepared).
type searchStmts struct{ fts, anyRanked, anyNewest, vocab *sql.Stmt }

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
	limit, err := sqlstore.CheckSearch(query, limit)
	if err != nil {
		return nil, err
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
	if so.AnyTerm {
		st.anyRanked, st.anyNewest = s.readStmt(ctx, ftsAnyRanked), s.readStmt(ctx, ftsAnyNewest)
	}
	var out []holomem.TextMatch
	err = s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if so.AnyTerm {
			out, err = anyTermSearch(ctx, tx, st, query, namespace, superseded, limit, so.TermDocs)
			sqlstore.SortMatches(out)
			return err
		}
		run := func(q string, n int) ([]holomem.TextMatch, error) {
			return ftsQuery(ctx, tx, st.fts, q, namespace, superseded, n)
		}
		out, err = sqlstore.SearchAllThenAny(all, limit, run, func() (string, error) {
			relaxed, err := selectiveTerms(ctx, tx, st.vocab, query, namespace, so.MaxTermDocs)
			return matchAny(relaxed), err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	return out, nil
}

// ftsQuery returns hits with the raw x = -bm25 in Score, best first.
func ftsQuery(ctx context.Context, tx *sql.Tx, st *sql.Stmt, terms, namespace string, superseded bool, limit int) ([]holomem.TextMatch, error) {
	rows, err := txQuery(ctx, tx, st, ftsSearch, scopedMatch(terms, namespace, superseded), limit)
	if err != nil {
		return nil, err
	}
	return scanMatches(rows)
}

// anyQuery runs one of the any-term queries q (statement st) for terms.
func anyQuery(ctx context.Context, tx *sql.Tx, st *sql.Stmt, q, terms, namespace string, superseded bool, limit int) ([]holomem.TextMatch, error) {
	rows, err := txQuery(ctx, tx, st, q, "{content tags} : ("+terms+")", namespace, superseded, limit)
	if err != nil {
		return nil, err
	}
	return scanMatches(rows)
}

func scanMatches(rows *sql.Rows) ([]holomem.TextMatch, error) {
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
// terms are tokens and their Snowball stems, see text.IndexText). The
// number of facts is read from FTS5's averages record (rowid 1 of the
// index's data table), which starts with the number of indexed rows as an
// SQLite varint: BM25's N in O(1) where count(*) reads a whole index (a
// millisecond at 100k facts, on every recall), and the N of the same index
// the document frequencies come from. Counts are cached while the index is
// unchanged (see termDocsCache), also across writes by other processes.
func (s *Store) TermStats(ctx context.Context, terms []string) (int64, []int64, error) {
	df := make([]int64, len(terms))
	var docs int64
	var unprepared string
	mark := s.readStmt(ctx, qFTSMark)
	err := s.read(ctx, func(tx *sql.Tx) error {
		key, avg, err := ftsMark(ctx, tx, mark)
		if err != nil {
			return err
		}
		if n, ok := sqliteVarint(avg); ok {
			docs = int64(n)
		} else if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM facts").Scan(&docs); err != nil {
			return err
		}
		var missing []int
		s.dfc.mu.Lock()
		if s.dfc.df == nil || !bytes.Equal(s.dfc.key, key) || len(s.dfc.df) > maxCachedTermDocs {
			s.dfc.key, s.dfc.df = key, map[string]int64{}
		}
		for i, t := range terms {
			if n, ok := s.dfc.df[t]; ok {
				df[i] = n
			} else {
				missing = append(missing, i)
			}
		}
		s.dfc.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		if unprepared, err = termDocsInto(ctx, s, tx, terms, missing, df); err != nil {
			return err
		}
		s.dfc.mu.Lock()
		if bytes.Equal(s.dfc.key, key) {
			for _, i := range missing {
				s.dfc.df[terms[i]] = df[i]
			}
		}
		s.dfc.mu.Unlock()
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("term stats: %w", err)
	}
	if unprepared != "" {
		s.readStmt(ctx, unprepared) // for the next query with as many terms
	}
	return docs, df, nil
}

// termDocsInto reads the document counts of terms[i] for i in idx into df,
// in one statement.
// It runs inside a read transaction, so it only uses the statement when it
// is prepared already; otherwise it returns the query in unprepared, for
// the caller to prepare once the transaction is over (see
// readStmtIfReady).
func termDocsInto(ctx context.Context, s *Store, tx *sql.Tx, terms []string, idx []int, df []int64) (unprepared string, err error) {
	q := termStatsSQL(len(idx))
	var st *sql.Stmt
	if len(idx) <= maxPreparedTermStats {
		if st = s.readStmtIfReady(q); st == nil {
			unprepared = q
		}
	}
	args := make([]any, len(idx))
	for j, i := range idx {
		args[j] = terms[i]
	}
	rows, err := txQuery(ctx, tx, st, q, args...)
	return unprepared, eachRow(rows, err, func(rows *sql.Rows) error {
		var j int
		var n int64
		if err := rows.Scan(&j, &n); err != nil {
			return err
		}
		if j >= 0 && j < len(idx) {
			df[idx[j]] = n
		}
		return nil
	})
}

// qFTSMark reads FTS5's averages record (rowid 1: the number of rows and
// of tokens per column) and its structure record (rowid 10: the segments,
// their tombstones and a write counter). Every change to the index changes
// one of them, so together they say whether cached document counts are
// still those of the index.
const qFTSMark = "SELECT id, block FROM facts_fts_data WHERE id IN (1, 10) ORDER BY id"

// maxCachedTermDocs bounds the document-count cache (entries).
const maxCachedTermDocs = 50_000

// termDocsCache holds document counts per term read under one state of the
// index (key: the qFTSMark blocks). fts5vocab counts a term's documents by
// reading its whole posting list, so without it a recall with a common
// word read thousands of postings just to weigh the word.
type termDocsCache struct {
	mu  sync.Mutex
	key []byte
	df  map[string]int64
}

// maxPreparedTermStats is the most terms whose TermStats statement is kept
// prepared (queries have a few content words; longer ones are parsed each
// time rather than filling the statement cache).
const maxPreparedTermStats = 8

// termStatsSQL is one statement for TermStats: term i's document count
// as row i. Each
// term is its own "term = ?" arm, which fts5vocab answers from the index
// (it would scan the whole vocabulary for IN); one statement instead of one
// per term saves a round trip through database/sql per word.
func termStatsSQL(n int) string {
	return unionArms(n, "SELECT %d, doc FROM facts_vocab WHERE term = ?")
}

// unionArms joins n copies of arm with UNION ALL, arm's %d replaced by
// each copy's index (0 to n-1), which the rows carry to tell arms apart.
func unionArms(n int, arm string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, arm, i)
	}
	return b.String()
}

// anyTermBudget bounds how many matches one any-term search ranks. FTS5's
// bm25() reads every match's phrase instances and length, a couple of
// microseconds each, so ranking every fact that shares a common word with
// the query costs time in proportion to the store. Up to the budget the
// search is exact; beyond it see anyTermSearch.
const anyTermBudget = 1500

// anyTermSearch ranks the facts with any of the query's words by BM25
// (the recall candidates, [holomem.WithAnyTerm]). When the words' document
// frequencies together stay within anyTermBudget it is one exact query.
// Otherwise the words are split, rarest first, into the selective ones
// (together within the budget) and the common rest, and the result is
// filled from, in order:
//  1. facts with a selective and a common word, all of them when they
//     fit in the limit (found by seeking, so bounded by the selective
//     postings; not ranked, because bm25() would walk the common words'
//     postings to count them);
//  2. facts with a selective word, ranked by BM25 over those words;
//  3. the newest facts with every common word (when there are several),
//     then the newest with any, unranked (a common word alone says
//     little, and ranking all its facts is what the budget avoids):
//     recency picks them, retrieval's fusion re-scores them.
//
// Scores are x / max x of each part scaled 1, 0.5, 0.25, ... (parts that
// find nothing new take no scale), so earlier parts outrank later ones.
func anyTermSearch(ctx context.Context, tx *sql.Tx, st searchStmts, query, namespace string, superseded bool, limit int, known map[string]int64) ([]holomem.TextMatch, error) {
	type term struct {
		tok string
		df  int64
	}
	var terms []term
	var total int64
	for _, t := range queryTokens(query) {
		df, ok := known[stem(t)]
		if !ok {
			var err error
			if df, err = termDocs(ctx, tx, st.vocab, t); err != nil {
				return nil, err
			}
		}
		if df == 0 && morphPrefix(t) == "" {
			continue // matches nothing
		}
		terms = append(terms, term{t, df})
		total += df
	}
	if len(terms) == 0 {
		return nil, nil
	}
	if total <= anyTermBudget {
		hits, err := anyQuery(ctx, tx, st.anyRanked, ftsAnyRanked, matchAny(query), namespace, superseded, limit)
		return sqlstore.Normalise(hits, 1), err
	}
	slices.SortStableFunc(terms, func(a, b term) int { return cmp.Compare(a.df, b.df) })
	var sel, com []string
	var cum int64
	for _, t := range terms {
		if cum+t.df <= anyTermBudget && len(com) == 0 {
			sel = append(sel, t.tok)
			cum += t.df
		} else {
			com = append(com, t.tok)
		}
	}
	selQ, comQ := matchAny(strings.Join(sel, " ")), matchAny(strings.Join(com, " "))
	var out []holomem.TextMatch
	seen := map[int64]bool{}
	scale := 1.0
	add := func(hits []holomem.TextMatch) {
		hits = slices.DeleteFunc(hits, func(h holomem.TextMatch) bool { return seen[h.ID] })
		if len(hits) > limit-len(out) {
			hits = hits[:limit-len(out)]
		}
		if len(hits) == 0 {
			return
		}
		for _, h := range hits {
			seen[h.ID] = true
		}
		out = append(out, sqlstore.Normalise(hits, scale)...)
		scale /= 2
	}
	if len(sel) > 0 {
		if len(com) > 0 {
			hits, err := anyQuery(ctx, tx, st.anyNewest, ftsAnyNewest, "("+selQ+") AND ("+comQ+")", namespace, superseded, limit+1)
			if err != nil {
				return nil, err
			}
			if len(hits) <= limit {
				add(hits)
			}
		}
		if len(out) < limit {
			hits, err := anyQuery(ctx, tx, st.anyRanked, ftsAnyRanked, selQ, namespace, superseded, limit+len(out))
			if err != nil {
				return nil, err
			}
			add(hits)
		}
	}
	if len(out) < limit && len(com) > 1 {
		hits, err := anyQuery(ctx, tx, st.anyNewest, ftsAnyNewest, matchAll(strings.Join(com, " ")), namespace, superseded, limit+len(out))
		if err != nil {
			return nil, err
		}
		add(hits)
	}
	if len(out) < limit && len(com) > 0 {
		hits, err := anyQuery(ctx, tx, st.anyNewest, ftsAnyNewest, comQ, namespace, superseded, limit+len(out))
		if err != nil {
			return nil, err
		}
		add(hits)
	}
	return out, nil
}

// termDocs is the number of facts a query word matches (its morphological
// prefix aside): those whose index holds its stem, since the index holds
// every token's stem (text.IndexText) and the word's other forms share it.
func termDocs(ctx context.Context, tx *sql.Tx, st *sql.Stmt, tok string) (int64, error) {
	var df int64
	err := txQueryRow(ctx, tx, st, qVocabDoc, stem(tok)).Scan(&df)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	return df, nil
}

// sqliteVarint decodes the SQLite varint at the start of b (1-9 bytes, big
// endian, 7 bits a byte, the ninth byte whole); false when b is too short.
func sqliteVarint(b []byte) (uint64, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), true
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// qWordFacts lists the live facts of a namespace holding every word of a
// scopedMatch expression below an id, unranked (no bm25(): no walk of
// every posting list for document frequencies).
const qWordFacts = "SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? AND rowid < ? ORDER BY rowid"

// FactIDsWithWords returns, in id order, the ids of the namespace's live
// facts below beforeID (0: no bound) that hold every one of words, and a
// word starting with each of prefixes, in their content or tags (see
// [holomem.WordFinder]).
func (s *Store) FactIDsWithWords(ctx context.Context, namespace string, words, prefixes []string, beforeID int64) ([]int64, error) {
	namespace = defaultNamespace(namespace)
	var terms []string
	for i, list := range [][]string{words, prefixes} {
		for _, w := range list {
			if w = strings.TrimSpace(w); w == "" {
				continue
			}
			t := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
			if i == 1 {
				t += "*"
			}
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
	if beforeID <= 0 {
		beforeID = math.MaxInt64
	}
	var ids []int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, qWordFacts, scopedMatch(strings.Join(terms, " AND "), namespace, false), beforeID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("facts with words: %w", err)
	}
	return ids, nil
}
