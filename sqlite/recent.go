package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// qRecentFactsOfNamed is qRecentFactsOfEntity with the entity looked up
// by key (aliases resolved) in the same statement: no entity gives no rows.
const qRecentFactsOfNamed = "SELECT fact_id FROM fact_entities WHERE entity_id = (" + qLookupEntity + ") ORDER BY fact_id DESC LIMIT ?"

// RecentFactIDsByEntities is [Store.RecentFactIDsByEntity] for several
// names in one read transaction, one statement each: write-time hygiene
// asks for up to five entities on every add. ids[i] belongs to names[i]
// (nil for an unknown entity).
func (s *Store) RecentFactIDsByEntities(ctx context.Context, namespace string, names []string, limit int) ([][]int64, error) {
	namespace = defaultNamespace(namespace)
	out := make([][]int64, len(names))
	if limit <= 0 || len(names) == 0 {
		return out, nil
	}
	st := s.readStmt(ctx, qRecentFactsOfNamed)
	err := s.read(ctx, func(tx *sql.Tx) error {
		for i, name := range names {
			key := entityKey(name)
			if key == "" {
				continue
			}
			rows, err := txQuery(ctx, tx, st, qRecentFactsOfNamed, namespace, key, namespace, key, limit)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				out[i] = append(out[i], id)
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return err
			}
			slices.Reverse(out[i])
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recent facts by entities: %w", err)
	}
	return out, nil
}
