package postgres

import (
	"context"
	"fmt"

	"github.com/holomem/holomem/internal/store/sqlstore"
)

// Meta returns the value stored under key, or ErrNotFound.
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	if s.isClosed() {
		return "", fmt.Errorf("meta %q: %w", key, errClosed)
	}
	return sqlstore.MetaValue(pgTx{ctx, s.pool}.QueryRow(sqlstore.QMeta, key), key)
}
