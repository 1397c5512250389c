package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/holomem/holomem"
)

// Stats summarises the store for doctor and stats; an empty namespace
// means the whole store. Facts counts all facts, superseded ones included;
// Edges and EdgeActivity count edges whose source is in the namespace.
func (b *Base) Stats(ctx context.Context, namespace string) (*holomem.Stats, error) {
	st := &holomem.Stats{
		Path:       b.Path,
		Edges:      map[string]int{},
		Namespaces: map[string]int{},
		Categories: map[string]int{},
		Models:     map[string]int{},
	}
	now := b.Now()
	err := b.Read(ctx, nil, func(tx Tx) error {
		var err error
		if st.SizeBytes, err = b.Size(tx); err != nil {
			return err
		}
		return ReadStats(tx, b.Dialect, st, namespace, now)
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

// ReadStats fills st with the counts of the store, or of namespace when
// it is not empty: facts (superseded ones included), entities, and by
// namespace, category, model and edge kind; edges count when their
// source is in the namespace. Edge activity is judged at now.
func ReadStats(tx Tx, d *Dialect, st *holomem.Stats, namespace string, now time.Time) error {
	namespace = strings.TrimSpace(namespace)
	factCond, edgeCond := "", ""
	var args []any
	if namespace != "" {
		factCond = " WHERE namespace = ?"
		edgeCond = " WHERE src IN (SELECT id FROM facts WHERE namespace = ?)"
		args = []any{namespace}
	}
	if err := tx.QueryRow(d.QSchemaVersion).Scan(&st.SchemaVersion); err != nil {
		return err
	}
	err := tx.QueryRow("SELECT count(*), count(superseded_by), count(*) - count(hrr) FROM facts"+factCond, args...).
		Scan(&st.Facts, &st.Superseded, &st.WithoutHRR)
	if err != nil {
		return err
	}
	if err := tx.QueryRow("SELECT count(*) FROM entities"+factCond, args...).Scan(&st.Entities); err != nil {
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
		if err := countInto(tx, g.m, g.q, args...); err != nil {
			return err
		}
	}
	recent := now.Add(-holomem.EdgeRecentWindow).UnixNano()
	previous := now.Add(-holomem.EdgeRecentWindow - holomem.EdgePreviousWindow).UnixNano()
	rows, err := tx.Query(`SELECT kind, origin,
		count(CASE WHEN created_at >= ? THEN 1 END),
		count(CASE WHEN created_at < ? AND created_at >= ? THEN 1 END),
		count(CASE WHEN created_at < ? THEN 1 END),
		max(created_at)
		FROM edges`+edgeCond+` GROUP BY kind, origin ORDER BY kind`+d.Collate+`, origin`+d.Collate,
		append([]any{recent, recent, previous, previous}, args...)...)
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
		a.Kind, a.Newest = holomem.EdgeKind(kind), FromNanos(newest)
		a.Judge()
		st.EdgeActivity = append(st.EdgeActivity, a)
	}
	return rows.Err()
}

func countInto(tx Tx, m map[string]int, q string, args ...any) error {
	rows, err := tx.Query(q, args...)
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

// Namespaces returns the namespaces that hold facts, sorted.
func (b *Base) Namespaces(ctx context.Context) ([]string, error) {
	var out []string
	err := b.Read(ctx, nil, func(tx Tx) error {
		rows, err := tx.Query(b.Dialect.QNamespaces)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = Collect(rows, func(r Rows, ns *string) error { return r.Scan(ns) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	return out, nil
}
