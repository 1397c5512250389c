package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// LastChange returns the time of the newest change to a fact (its
// updated_at), or the zero time for an empty store. Restore compares it
// between the live file and a backup so it does not overwrite newer work.
func (s *Store) LastChange(ctx context.Context) (time.Time, error) {
	var n sql.NullInt64
	if err := s.rdb.QueryRowContext(ctx, "SELECT max(updated_at) FROM facts").Scan(&n); err != nil {
		return time.Time{}, fmt.Errorf("last change: %w", err)
	}
	if !n.Valid {
		return time.Time{}, nil
	}
	return time.Unix(0, n.Int64).UTC(), nil
}
