package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// indexGraphSchema is the schema version that made the index's tables
// (migration 0009).
const indexGraphSchema = 9

// beforeIndexGraphs reports whether the file is at a schema without the
// index's tables: an older file opened read-only without migrating (verify
// checks what it can), where no graph is stored the way this binary reads.
func (s *Store) beforeIndexGraphs(ctx context.Context) bool {
	v, err := s.SchemaVersion(ctx)
	return err == nil && v < indexGraphSchema
}

// IndexGraph returns the description stored with namespace's HNSW graph.
// Returns ErrNotFound when the namespace has none (or the file's schema
// predates the index's tables).
func (s *Store) IndexGraph(ctx context.Context, namespace string) (string, error) {
	var v string
	err := s.rdb.QueryRowContext(ctx, "SELECT description FROM index_graphs WHERE namespace = ?", namespace).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) || (err != nil && s.beforeIndexGraphs(ctx)) {
		return "", fmt.Errorf("index graph of %q: %w", namespace, holomem.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("index graph of %q: %w", namespace, err)
	}
	return v, nil
}

// IndexLinks returns the upper-layer links of namespace's graph ordered by
// (level, from, to).
func (s *Store) IndexLinks(ctx context.Context, namespace string) ([]holomem.IndexLink, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT level, src, dst FROM index_links WHERE namespace = ? ORDER BY level, src, dst", namespace)
	if err != nil && s.beforeIndexGraphs(ctx) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index links of %q: %w", namespace, err)
	}
	defer rows.Close()
	var out []holomem.IndexLink
	for rows.Next() {
		var l holomem.IndexLink
		if err := rows.Scan(&l.Level, &l.From, &l.To); err != nil {
			return nil, fmt.Errorf("index links of %q: %w", namespace, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index links of %q: %w", namespace, err)
	}
	return out, nil
}

// SaveIndexGraph replaces namespace's description and upper-layer links in
// one transaction. Each link must join two facts of the namespace.
func (s *Store) SaveIndexGraph(ctx context.Context, namespace, desc string, links []holomem.IndexLink) error {
	err := s.update(ctx, func(w *wtx) error {
		if err := sqlstore.DeleteIndexGraph(w, namespace); err != nil {
			return err
		}
		for i, l := range links {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := w.indexLinkOK(namespace, l); err != nil {
				return fmt.Errorf("link %d: %w", i, err)
			}
			if _, err := w.exec("INSERT INTO index_links (namespace, level, src, dst) VALUES (?, ?, ?, ?)", namespace, l.Level, l.From, l.To); err != nil {
				return fmt.Errorf("link %d: %w", i, err)
			}
		}
		_, err := w.exec("INSERT INTO index_graphs (namespace, description) VALUES (?, ?)", namespace, desc)
		return err
	})
	if err != nil {
		return fmt.Errorf("save index graph of %q: %w", namespace, err)
	}
	return nil
}

// indexLinkOK reports whether l can be stored in namespace's graph.
func (w *wtx) indexLinkOK(namespace string, l holomem.IndexLink) error {
	if err := l.Validate(); err != nil {
		return err
	}
	for _, id := range [2]int64{l.From, l.To} {
		r, err := w.refs.Ref(w, dialect, id)
		if err != nil {
			return err
		}
		if r.Namespace != namespace {
			return fmt.Errorf("%w: fact %d is in namespace %q, not %q", holomem.ErrInvalid, id, r.Namespace, namespace)
		}
	}
	return nil
}
