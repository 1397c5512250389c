// Package testutil holds helpers shared by tests: opening a real SQLite
// store and memory service in a temporary directory. Import it only from
// _test.go files.
package testutil

import (
	"path/filepath"
	"testing"

	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// MustOpenStore opens a new SQLite store in tb's temporary directory and
// closes it when the test ends.
func MustOpenStore(tb testing.TB) *sqlite.Store {
	tb.Helper()
	s, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "holomem.db"))
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
	return s
}

// MustOpenMemory opens a store and a memory service over it.
func MustOpenMemory(tb testing.TB, opts retrieve.Options) (*retrieve.Memory, *sqlite.Store) {
	tb.Helper()
	s := MustOpenStore(tb)
	m, err := retrieve.New(s, opts)
	if err != nil {
		tb.Fatalf("new memory: %v", err)
	}
	tb.Cleanup(func() { m.Close() })
	return m, s
}
