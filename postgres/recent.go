package postgres

import (
	"context"
	"fmt"

	"github.com/holomem/holomem/text"
)

// qRecentFactsOfNamed returns, for each entity key in $2 (aliases
// resolved in namespace $1), the ids of its newest $3 facts, in one round
// trip: rows are (ordinal of the key, fact id), ordered by both.
const qRecentFactsOfNamed = `SELECT u.i, r.fact_id
	FROM unnest($2::text[]) WITH ORDINALITY AS u(k, i)
	CROSS JOIN LATERAL (
		SELECT fe.fact_id FROM fact_entities fe
		WHERE fe.entity_id = (
			(SELECT id FROM entities WHERE namespace = $1 AND key = u.k)
			UNION ALL
			(SELECT entity_id FROM entity_aliases WHERE namespace = $1 AND alias_key = u.k)
			LIMIT 1)
		ORDER BY fe.fact_id DESC LIMIT $3) r
	ORDER BY u.i, r.fact_id`

// RecentFactIDsByEntity implements [holomem.RecentEntityFacts]: the ids of
// the newest limit facts linked to the entity (aliases resolved), ordered
// by id; none for an unknown entity. Write-time hygiene uses it, since a
// popular entity may be linked to thousands of facts.
func (s *Store) RecentFactIDsByEntity(ctx context.Context, namespace, name string, limit int) ([]int64, error) {
	ids, err := s.recentFactIDs(ctx, namespace, []string{name}, limit)
	if err != nil {
		return nil, fmt.Errorf("recent facts by entity: %w", err)
	}
	return ids[0], nil
}

// RecentFactIDsByEntities implements [holomem.RecentEntitiesFacts]:
// [Store.RecentFactIDsByEntity] for several names in one statement.
// ids[i] belongs to names[i] (nil for an unknown entity).
func (s *Store) RecentFactIDsByEntities(ctx context.Context, namespace string, names []string, limit int) ([][]int64, error) {
	ids, err := s.recentFactIDs(ctx, namespace, names, limit)
	if err != nil {
		return nil, fmt.Errorf("recent facts by entities: %w", err)
	}
	return ids, nil
}

func (s *Store) recentFactIDs(ctx context.Context, namespace string, names []string, limit int) ([][]int64, error) {
	namespace = defaultNamespace(namespace)
	out := make([][]int64, len(names))
	if limit <= 0 || len(names) == 0 {
		return out, nil
	}
	// at maps the ordinal of each key sent (1-based) to its name's index;
	// names without a key have no entity.
	keys := make([]string, 0, len(names))
	at := make([]int, 0, len(names))
	for i, name := range names {
		if k := text.EntityKey(name); k != "" {
			keys = append(keys, k)
			at = append(at, i)
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	err := s.readOne(ctx, func(q querier) error {
		rows, err := q.Query(ctx, qRecentFactsOfNamed, namespace, keys, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var i, id int64
			if err := rows.Scan(&i, &id); err != nil {
				return err
			}
			out[at[i-1]] = append(out[at[i-1]], id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
