// Package testutil holds helpers shared by tests: opening a real store
// and memory service. Import it only from _test.go files.
//
// The store is a new SQLite file in the test's temporary directory, or,
// with HOLOMEM_TEST_STORE=postgres, a new schema in the PostgreSQL database
// named by HOLOMEM_TEST_POSTGRES (see package pgtest), dropped when the
// test ends: the retrieval tests run on both backends that way
// (`.ci/run` runs them on PostgreSQL too).
//
// With HOLOMEM_TEST_LIVE=1 every memory keeps the in-memory text index of
// a long-running process ([retrieve.Options.LiveIndex]), loaded before the
// test uses it: `.ci/run` runs the retrieval tests that way too, so recall
// and hygiene behave the same from the index as from the store's search.
package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
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

// LiveEnv, set to 1, makes MustOpenMemory keep the live text index.
const LiveEnv = "HOLOMEM_TEST_LIVE"

// MustOpenMemory opens a store and a memory service over it. With
// opts.LiveIndex (or HOLOMEM_TEST_LIVE=1) the text index is loaded first.
func MustOpenMemory(tb testing.TB, opts retrieve.Options) (*retrieve.Memory, holomem.Store) {
	tb.Helper()
	s := MustOpenStore(tb)
	m := MustNewMemory(tb, s, opts)
	return m, s
}

// MustNewMemory returns a memory service over s, closed when the test
// ends; see MustOpenMemory for the live text index.
func MustNewMemory(tb testing.TB, s holomem.Store, opts retrieve.Options) *retrieve.Memory {
	tb.Helper()
	if os.Getenv(LiveEnv) == "1" {
		opts.LiveIndex = true
	}
	m, err := retrieve.New(s, opts)
	if err != nil {
		tb.Fatalf("new memory: %v", err)
	}
	tb.Cleanup(func() { m.Close() })
	if opts.LiveIndex {
		if err := m.WarmText(tb.Context()); err != nil {
			tb.Fatalf("load text index: %v", err)
		}
	}
	return m
}
