package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// Write-time hygiene's candidate search (see SimilarFacts). Neither
// statement ranks with ts_rank, and each reads at most a bounded number
// of rows per word, so an add costs the same in a large namespace as in
// a small one.
const (
	// qSimilarTermIDs reads, for each single-word tsquery in $1, up to $3
	// live facts of namespace $2 holding it: rows (ordinal of the word,
	// fact id).
	qSimilarTermIDs = `SELECT t.i, s.id FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i)
	CROSS JOIN LATERAL (SELECT id FROM fact_search
		WHERE fts @@ t.q::tsquery AND namespace = $2 AND live LIMIT $3) s`
	// qSimilarAllIDs lists the first live facts of the namespace holding
	// every word, oldest first.
	qSimilarAllIDs = `SELECT id FROM fact_search
	WHERE fts @@ $1::tsquery AND namespace = $2 AND live ORDER BY id LIMIT $3`
)

// SimilarFacts implements [holomem.SimilarFactFinder]: up to limit live
// facts of the namespace that share the most of terms (content words of
// a fact about to be written), for write-time hygiene, with the SQLite
// store's scoring. Each term found in at most maxTermDocs live facts of
// the namespace weighs ln(1 + (maxTermDocs+1)/df); a fact scores the
// weights of the terms it holds over the weights of all of them, best
// first (ties: newest first). Terms in more facts are left out, so one
// statement reads at most len(terms) × (maxTermDocs+1) rows however large
// the namespace is. When no term is rare, the facts holding every term
// are returned instead (score 1, oldest first). maxTermDocs <= 0 means
// 200. (SQLite counts a term's facts over the whole file, which only
// bounds the work; here the count is the namespace's, which the same
// LIMIT bounds.)
func (s *Store) SimilarFacts(ctx context.Context, namespace string, terms []string, limit, maxTermDocs int) ([]holomem.TextMatch, error) {
	if limit <= 0 {
		limit = holomem.DefaultLimit
	}
	if maxTermDocs <= 0 {
		maxTermDocs = 200
	}
	namespace = defaultNamespace(namespace)
	qts := queryTerms(strings.Join(terms, " "))
	if len(qts) == 0 {
		return nil, nil
	}
	qs := make([]string, len(qts))
	for i, t := range qts {
		qs[i] = tsquery([]queryTerm{t}, "|")
	}
	var out []holomem.TextMatch
	err := s.readOne(ctx, func(q querier) error {
		rows, err := q.Query(ctx, qSimilarTermIDs, qs, namespace, maxTermDocs+1)
		if err != nil {
			return err
		}
		byTerm := make([][]int64, len(qs))
		for rows.Next() {
			var i, id int64
			if err := rows.Scan(&i, &id); err != nil {
				rows.Close()
				return err
			}
			byTerm[i-1] = append(byTerm[i-1], id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		score := map[int64]float64{}
		total := 0.0
		for _, ids := range byTerm {
			n := len(ids)
			if n == 0 || n > maxTermDocs {
				continue
			}
			w := math.Log(1 + float64(maxTermDocs+1)/float64(n))
			total += w
			for _, id := range ids {
				score[id] += w
			}
		}
		if total == 0 {
			rows, err := q.Query(ctx, qSimilarAllIDs, tsquery(qts, "&"), namespace, limit)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				out = append(out, holomem.TextMatch{ID: id, Score: 1})
			}
			return rows.Err()
		}
		out = sqlstore.RankedMatches(score, total, limit)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("similar facts: %w", err)
	}
	return out, nil
}
