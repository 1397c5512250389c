package sqlite

import (
	"context"
	"fmt"
	"os"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/sqlstore"
)

// Stats summarises the store for doctor and stats; an empty namespace
// means the whole store. Facts counts all facts, superseded ones included;
// Edges and EdgeActivity count edges whose source is in the namespace.
// SizeBytes is the database file plus its write-ahead log.
func (s *Store) Stats(ctx context.Context, namespace string) (*holomem.Stats, error) {
	st := sqlstore.NewStats(s.path)
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			st.SizeBytes += fi.Size()
		}
	}
	now := s.now()
	err := s.Read(ctx, nil, func(tx sqlstore.Tx) error { return sqlstore.ReadStats(tx, dialect, st, namespace, now) })
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}
