// Package testutil holds helpers shared by tests: opening a real store
// and memory service. Import it only from _test.go files.
//
// The store is a new SQLite file in the test's temporary directory, or,
// with HOLOMEM_TEST_STORE=postgres, a new schema in the PostgreSQL database
// named by HOLOMEM_TEST_POSTGRES (see package pgtest), dropped when the
// test ends: the retrieval tests run on both backends that way
// (`.ci/run` runs them on PostgreSQL too).
package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// StoreEnv selects the backend of MustOpenStore: "sqlite" (default) or
// "postgres".
const StoreEnv = "HOLOMEM_TEST_STORE"

// MustOpenStore opens a new, empty store and closes it when the test ends.
func MustOpenStore(tb testing.TB) holomem.Store {
	tb.Helper()
	var s holomem.Store
	var err error
	switch b := os.Getenv(StoreEnv); b {
	case "", "sqlite":
		s, err = sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "holomem.db"))
	case "postgres":
		s, err = postgres.Open(tb.Context(), pgtest.Addr(tb))
	default:
		tb.Fatalf("%s=%q: want sqlite or postgres", StoreEnv, b)
	}
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
func MustOpenMemory(tb testing.TB, opts retrieve.Options) (*retrieve.Memory, holomem.Store) {
	tb.Helper()
	s := MustOpenStore(tb)
	m, err := retrieve.New(s, opts)
	if err != nil {
		tb.Fatalf("new memory: %v", err)
	}
	tb.Cleanup(func() { m.Close() })
	return m, s
}
