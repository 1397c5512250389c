package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/holomem/holomem"
)

// SetMeta keeps a small named value (index state, canary results),
// replacing any previous one. Returns ErrInvalid for an empty key.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("set meta: %w: empty key", holomem.ErrInvalid)
	}
	err := s.update(ctx, func(w *wtx) error {
		_, err := w.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("set meta %q: %w", key, err)
	}
	return nil
}

// Meta returns the value stored under key. Returns ErrNotFound if the key
// was never set.
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.rdb.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("meta %q: %w", key, holomem.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("meta %q: %w", key, err)
	}
	return v, nil
}
