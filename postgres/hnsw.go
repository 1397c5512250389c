package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// IndexGraph returns the description stored with namespace's HNSW graph.
// Returns ErrNotFound when the namespace has none.
func (s *Store) IndexGraph(ctx context.Context, namespace string) (string, error) {
	var v string
	err := s.readOne(ctx, func(q querier) error {
		return q.QueryRow(ctx, "SELECT description FROM index_graphs WHERE namespace = $1", namespace).Scan(&v)
	})
	if errors.Is(err, pgx.ErrNoRows) {
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
	var out []holomem.IndexLink
	err := s.readOne(ctx, func(q querier) error {
		rows, err := q.Query(ctx, "SELECT level, src, dst FROM index_links WHERE namespace = $1 ORDER BY level, src, dst", namespace)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l holomem.IndexLink
			var level int16
			if err := rows.Scan(&level, &l.From, &l.To); err != nil {
				return err
			}
			l.Level = int(level)
			out = append(out, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("index links of %q: %w", namespace, err)
	}
	return out, nil
}

// SaveIndexGraph replaces namespace's description and upper-layer links in
// one transaction. Each link must join two facts of the namespace; the
// facts are locked (KEY SHARE) so none is deleted before the links are in.
func (s *Store) SaveIndexGraph(ctx context.Context, namespace, desc string, links []holomem.IndexLink) error {
	ids := make([]int64, 0, 2*len(links))
	for i, l := range links {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("save index graph of %q: link %d: %w", namespace, i, err)
		}
		ids = append(ids, l.From, l.To)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	err := s.update(ctx, func(w *wtx) error {
		if err := sqlstore.DeleteIndexGraph(w, namespace); err != nil {
			return err
		}
		if len(ids) > 0 {
			rows, err := w.query("SELECT id, namespace FROM facts WHERE id = ANY($1) ORDER BY id FOR KEY SHARE", ids)
			if err != nil {
				return err
			}
			found := 0
			for rows.Next() {
				var id int64
				var ns string
				if err := rows.Scan(&id, &ns); err != nil {
					rows.Close()
					return err
				}
				if ns != namespace {
					rows.Close()
					return fmt.Errorf("%w: fact %d is in namespace %q, not %q", holomem.ErrInvalid, id, ns, namespace)
				}
				found++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if found != len(ids) {
				return fmt.Errorf("%w: %d of the links' %d facts do not exist", holomem.ErrNotFound, len(ids)-found, len(ids))
			}
			levels := make([]int16, len(links))
			src := make([]int64, len(links))
			dst := make([]int64, len(links))
			for i, l := range links {
				levels[i], src[i], dst[i] = int16(l.Level), l.From, l.To
			}
			if _, err := w.exec(`INSERT INTO index_links (namespace, level, src, dst)
				SELECT $1, * FROM unnest($2::smallint[], $3::bigint[], $4::bigint[])`, namespace, levels, src, dst); err != nil {
				return err
			}
		}
		_, err := w.exec("INSERT INTO index_graphs (namespace, description) VALUES ($1, $2)", namespace, desc)
		return err
	})
	if err != nil {
		return fmt.Errorf("save index graph of %q: %w", namespace, err)
	}
	return nil
}
