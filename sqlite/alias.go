package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/holomem/holomem/internal/sqlstore"
)

// EntityAliases returns the namespace's aliases: alias key -> the name of
// the entity it stands for. Aliases are few (only "X aka Y" makes them), so
// callers load the map once instead of resolving names one query at a time.
func (s *Store) EntityAliases(ctx context.Context, namespace string) (map[string]string, error) {
	namespace = defaultNamespace(namespace)
	var out map[string]string
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT a.alias_key, e.name FROM entity_aliases a
			JOIN entities e ON e.id = a.entity_id WHERE a.namespace = ?`, namespace)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlstore.AliasMap(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("entity aliases: %w", err)
	}
	return out, nil
}
