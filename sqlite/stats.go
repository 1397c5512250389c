package sqlite

import (
	"os"

	"github.com/holomem/holomem/internal/store/sqlstore"
)

// size is Stats' SizeBytes: the database file plus its write-ahead log.
func (s *Store) size(sqlstore.Tx) (int64, error) {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}
