package postgres

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/sqlstore"
)

// Stats summarises the store for doctor and stats; an empty namespace
// means the whole store. SizeBytes is the on-disk size of holomem's tables
// with their indexes and TOAST data (the whole store, whatever namespace).
func (s *Store) Stats(ctx context.Context, namespace string) (*holomem.Stats, error) {
	st := sqlstore.NewStats(s.addr)
	now := s.now()
	err := s.Read(ctx, nil, func(tx sqlstore.Tx) error {
		err := tx.QueryRow(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
			AND c.relname IN ('facts', 'fact_search', 'entities', 'entity_aliases', 'fact_entities', 'edges', 'meta', 'injections', 'holomem_schema', 'fact_changes', 'fact_changes_pruned')`).Scan(&st.SizeBytes)
		if err != nil {
			return err
		}
		return sqlstore.ReadStats(tx, dialect, st, namespace, now)
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}
