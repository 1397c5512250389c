package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// Write-time hygiene's candidate search (see SimilarFacts). Neither
// statement ranks with bm25(): its IDF weights count every row of every
// phrase in the expression, the namespace's scope token included, so one
// call costs time in proportion to the namespace (at 100,000 facts it was
// most of a one-by-one add). Nor do their MATCH expressions name the
// columns ({content tags}): a column filter makes FTS5 read each match's
// position list (~4% of an add at 100,000 facts), and all it excludes is a
// word equal to a scope token ('l' or 's' and a hex namespace), which no
// fact says, and which would only add a candidate that Relate rejects.
const (
	// qTermIDs reads the first rows of a word's doclist (oldest first: FTS5
	// reads a doclist forwards without first seeking its end) and says of
	// each whether it is a live fact of the namespace. The namespace is
	// checked on the facts row rather than by the scope token inside the
	// MATCH: intersecting with the scope's doclist, which lists every fact
	// of the namespace, cost more than the word itself.
	qTermIDs = `SELECT m.rowid, f.namespace = ? AND f.superseded_by IS NULL
		FROM (SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid LIMIT ?) m
		CROSS JOIN facts f ON f.id = m.rowid`
	// qAllIDs lists the first facts holding every word that are live
	// facts of the namespace, oldest first; the namespace is checked on the
	// facts row for the same reason (CROSS JOIN: the planner would
	// otherwise walk the namespace's facts and look each up in FTS5).
	qAllIDs = `SELECT m.rowid
		FROM (SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid LIMIT ?) m
		CROSS JOIN facts f ON f.id = m.rowid
		WHERE f.namespace = ? AND f.superseded_by IS NULL`
)

// allIDsRead is how many all-word matches SimilarFacts reads per result it
// wants, before dropping other namespaces' and superseded facts.
const allIDsRead = 4

// SimilarFacts returns up to limit live facts of the namespace that share
// the most of terms (content words of a fact about to be written), for
// write-time hygiene: a near-duplicate or a contradiction shares most of a
// fact's words, so it holds the rare ones too.
//
// Each term found in at most maxTermDocs facts (df, counted over the whole
// file: a bound, not a statistic) weighs ln(1 + (maxTermDocs+1)/df); a fact scores the weights of the terms it holds
// over the weights of all of them (1: it holds every rare term), and the
// best come first (ties: newest first). Terms in more facts are left out,
// and remembered as common for a few minutes (a word rarely stops being
// common), so the work is bounded by len(terms) × maxTermDocs rows however
// large the namespace is. When no term is rare, the facts holding every
// term are returned instead (score 1, oldest first). maxTermDocs <= 0 means
// 200.
func (s *Store) SimilarFacts(ctx context.Context, namespace string, terms []string, limit, maxTermDocs int) ([]holomem.TextMatch, error) {
	if limit <= 0 {
		limit = holomem.DefaultLimit
	}
	if maxTermDocs <= 0 {
		maxTermDocs = 200
	}
	namespace = defaultNamespace(namespace)
	query := strings.Join(terms, " ")
	toks := queryTokens(query)
	if len(toks) == 0 {
		return nil, nil
	}
	allSt, termSt := s.readStmt(ctx, qAllIDs), s.readStmt(ctx, qTermIDs)
	var out []holomem.TextMatch
	err := s.read(ctx, func(tx *sql.Tx) error {
		score := map[int64]float64{}
		total := 0.0
		for _, t := range toks {
			if s.common.has(namespace, t, maxTermDocs) {
				continue
			}
			ids, n, err := termIDs(ctx, tx, termSt, t, namespace, maxTermDocs+1)
			if err != nil {
				return err
			}
			if n > maxTermDocs {
				s.common.add(namespace, t, maxTermDocs)
				continue
			}
			if len(ids) == 0 {
				continue
			}
			w := math.Log(1 + float64(maxTermDocs+1)/float64(n))
			total += w
			for _, id := range ids {
				score[id] += w
			}
		}
		if total == 0 {
			ids, err := allIDs(ctx, tx, allSt, query, namespace, allIDsRead*limit)
			for _, id := range ids[:min(len(ids), limit)] {
				out = append(out, holomem.TextMatch{ID: id, Score: 1})
			}
			return err
		}
		out = sqlstore.RankedMatches(score, total, limit)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("similar facts: %w", err)
	}
	return out, nil
}

// allIDs returns the live facts of namespace among the first limit facts
// holding every word of query, in id order.
func allIDs(ctx context.Context, tx *sql.Tx, st *sql.Stmt, query, namespace string, limit int) ([]int64, error) {
	rows, err := txQuery(ctx, tx, st, qAllIDs, matchAll(query), limit, namespace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlstore.Collect(rows, sqlstore.ScanID)
}

// termIDs reads up to limit facts (of any namespace) holding word t and
// returns the live ones of namespace and how many were read.
func termIDs(ctx context.Context, tx *sql.Tx, st *sql.Stmt, t, namespace string, limit int) ([]int64, int, error) {
	rows, err := txQuery(ctx, tx, st, qTermIDs, namespace, matchAll(t), limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	n := 0
	for rows.Next() {
		var id int64
		var live bool
		if err := rows.Scan(&id, &live); err != nil {
			return nil, 0, err
		}
		n++
		if live {
			ids = append(ids, id)
		}
	}
	return ids, n, rows.Err()
}

// commonTermsTTL is how long a word stays known as common: deletes and
// supersedes can make it rare again, and another process may have changed
// the file; until then hygiene just does not use the word.
const commonTermsTTL = 5 * time.Minute

// maxCommonTerms bounds the memory of common words.
const maxCommonTerms = 1 << 16

// commonTerms remembers (namespace, word, bound) triples found in more
// facts than the bound, each with the time it was found. Safe for
// concurrent use.
type commonTerms struct {
	mu sync.Mutex
	m  map[commonKey]time.Time
}

type commonKey struct {
	namespace, term string
	bound           int
}

func (c *commonTerms) has(namespace, term string, bound int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.m[commonKey{namespace, term, bound}]
	return ok && time.Since(at) < commonTermsTTL
}

func (c *commonTerms) add(namespace, term string, bound int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCommonTerms {
		c.m = make(map[commonKey]time.Time)
	}
	c.m[commonKey{namespace, term, bound}] = time.Now()
}
