package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
)

// Edge liveness windows for [holomem.EdgeActivity], set by the domain.
const (
	recentWindow   = holomem.EdgeRecentWindow
	previousWindow = holomem.EdgePreviousWindow
)

// Stats summarises the store for doctor and stats; an empty namespace
// means the whole store. SizeBytes is the on-disk size of holomem's tables
// with their indexes and TOAST data (the whole store, whatever namespace).
func (s *Store) Stats(ctx context.Context, namespace string) (*holomem.Stats, error) {
	namespace = strings.TrimSpace(namespace)
	st := &holomem.Stats{
		Path:       s.addr,
		Edges:      map[string]int{},
		Namespaces: map[string]int{},
		Categories: map[string]int{},
		Models:     map[string]int{},
	}
	factCond, edgeCond, entCond := "", "", ""
	var nsArgs []any
	if namespace != "" {
		factCond = " WHERE namespace = $1"
		edgeCond = " WHERE src IN (SELECT id FROM facts WHERE namespace = $1)"
		entCond = " WHERE namespace = $1"
		nsArgs = []any{namespace}
	}
	now := s.now()
	recent := nanos(now.Add(-recentWindow))
	previous := nanos(now.Add(-recentWindow - previousWindow))

	err := s.read(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT version FROM holomem_schema").Scan(&st.SchemaVersion); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
			AND c.relname IN ('facts', 'fact_search', 'entities', 'entity_aliases', 'fact_entities', 'edges', 'meta', 'injections', 'holomem_schema', 'fact_changes', 'fact_changes_pruned')`).Scan(&st.SizeBytes)
		if err != nil {
			return err
		}
		err = tx.QueryRow(ctx, `SELECT count(*),
			count(*) FILTER (WHERE superseded_by IS NOT NULL),
			count(*) FILTER (WHERE hrr IS NULL)
			FROM facts`+factCond, nsArgs...).Scan(&st.Facts, &st.Superseded, &st.WithoutHRR)
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM entities"+entCond, nsArgs...).Scan(&st.Entities); err != nil {
			return err
		}
		groups := []struct {
			q string
			m map[string]int
		}{
			{"SELECT namespace, count(*) FROM facts" + factCond + " GROUP BY namespace", st.Namespaces},
			{"SELECT category, count(*) FROM facts" + factCond + " GROUP BY category", st.Categories},
			{"SELECT model_id, count(*) FROM facts WHERE model_id IS NOT NULL AND embedding IS NOT NULL" +
				strings.Replace(factCond, " WHERE", " AND", 1) + " GROUP BY model_id", st.Models},
			{"SELECT kind, count(*) FROM edges" + edgeCond + " GROUP BY kind", st.Edges},
		}
		for _, g := range groups {
			if err := countInto(ctx, tx, g.m, g.q, nsArgs...); err != nil {
				return err
			}
		}
		var a args
		a = append(a, nsArgs...)
		rows, err := tx.Query(ctx, `SELECT kind, origin,
			count(*) FILTER (WHERE created_at >= `+a.add(recent)+`),
			count(*) FILTER (WHERE created_at < `+a.add(recent)+` AND created_at >= `+a.add(previous)+`),
			count(*) FILTER (WHERE created_at < `+a.add(previous)+`),
			max(created_at)
			FROM edges`+edgeCond+` GROUP BY kind, origin ORDER BY kind COLLATE "C", origin COLLATE "C"`, a...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ea holomem.EdgeActivity
			var kind string
			var newest int64
			if err := rows.Scan(&kind, &ea.Origin, &ea.Last7d, &ea.Prev30d, &ea.Older, &newest); err != nil {
				return err
			}
			ea.Kind, ea.Newest = holomem.EdgeKind(kind), fromNanos(newest)
			ea.Judge()
			st.EdgeActivity = append(st.EdgeActivity, ea)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

func countInto(ctx context.Context, tx pgx.Tx, m map[string]int, q string, qargs ...any) error {
	rows, err := tx.Query(ctx, q, qargs...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		m[k] = n
	}
	return rows.Err()
}
