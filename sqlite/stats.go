package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/holomem/holomem"
)

// Edge liveness windows for [holomem.EdgeActivity], set by the domain.
const (
	recentWindow   = holomem.EdgeRecentWindow
	previousWindow = holomem.EdgePreviousWindow
)

// Stats summarises the store for doctor and stats; an empty namespace
// means the whole store. Facts counts all facts, superseded ones included;
// Edges and EdgeActivity count edges whose source is in the namespace.
// SizeBytes is the database file plus its write-ahead log.
func (s *Store) Stats(ctx context.Context, namespace string) (*holomem.Stats, error) {
	namespace = strings.TrimSpace(namespace)
	st := &holomem.Stats{
		Path:       s.path,
		Edges:      map[string]int{},
		Namespaces: map[string]int{},
		Categories: map[string]int{},
		Models:     map[string]int{},
	}
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			st.SizeBytes += fi.Size()
		}
	}
	factCond, edgeCond, entCond := "", "", ""
	var args []any
	if namespace != "" {
		factCond = " WHERE namespace = ?"
		edgeCond = " WHERE src IN (SELECT id FROM facts WHERE namespace = ?)"
		entCond = " WHERE namespace = ?"
		args = []any{namespace}
	}
	now := s.now()
	recent := nanos(now.Add(-recentWindow))
	previous := nanos(now.Add(-recentWindow - previousWindow))

	err := s.read(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&st.SchemaVersion); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT count(*),
			coalesce(sum(superseded_by IS NOT NULL), 0),
			coalesce(sum(hrr IS NULL), 0)
			FROM facts`+factCond, args...).Scan(&st.Facts, &st.Superseded, &st.WithoutHRR)
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM entities"+entCond, args...).Scan(&st.Entities); err != nil {
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
			if err := countInto(ctx, tx, g.m, g.q, args...); err != nil {
				return err
			}
		}
		aargs := append([]any{recent, recent, previous, previous}, args...)
		rows, err := tx.QueryContext(ctx, `SELECT kind, origin,
			sum(created_at >= ?), sum(created_at < ? AND created_at >= ?), sum(created_at < ?), max(created_at)
			FROM edges`+edgeCond+` GROUP BY kind, origin ORDER BY kind, origin`, aargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a holomem.EdgeActivity
			var kind string
			var newest int64
			if err := rows.Scan(&kind, &a.Origin, &a.Last7d, &a.Prev30d, &a.Older, &newest); err != nil {
				return err
			}
			a.Kind, a.Newest = holomem.EdgeKind(kind), fromNanos(newest)
			a.Judge()
			st.EdgeActivity = append(st.EdgeActivity, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

func countInto(ctx context.Context, tx *sql.Tx, m map[string]int, q string, args ...any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
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

// Namespaces returns the namespaces that hold facts, sorted. It reads only
// an index, which recall's "found elsewhere" hint relies on to stay cheap.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT DISTINCT namespace FROM facts ORDER BY namespace")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ns string
			if err := rows.Scan(&ns); err != nil {
				return err
			}
			out = append(out, ns)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	return out, nil
}
