package sqlite

import (
	"context"

	"github.com/holomem/holomem/internal/store/sqlstore"
)

// Meta returns the value stored under key. Returns ErrNotFound if the key
// was never set.
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	return sqlstore.MetaValue(s.rdb.QueryRowContext(ctx, sqlstore.QMeta, key), key)
}
