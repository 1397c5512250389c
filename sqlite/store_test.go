package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
	"github.com/holomem/holomem/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) holomem.Store { return mustOpen(t, filepath.Join(t.TempDir(), "holomem.db")) })
}

// mustOpen opens a store at path and closes it when the test ends.
func mustOpen(tb testing.TB, path string, opts ...sqlite.Option) *sqlite.Store {
	tb.Helper()
	s, err := sqlite.Open(tb.Context(), path, opts...)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
