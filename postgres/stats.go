package postgres

import "github.com/holomem/holomem/internal/store/sqlstore"

// size is Stats' SizeBytes: the on-disk size of holomem's tables with
// their indexes and TOAST data (the whole store, whatever namespace).
func size(tx sqlstore.Tx) (int64, error) {
	var n int64
	err := tx.QueryRow(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
		AND c.relname IN ('facts', 'fact_search', 'entities', 'entity_aliases', 'fact_entities', 'edges', 'meta', 'injections', 'holomem_schema', 'fact_changes', 'fact_changes_pruned', 'fact_counts', 'index_graphs', 'index_links')`).Scan(&n)
	return n, err
}
