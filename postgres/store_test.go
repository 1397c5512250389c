package postgres_test

import (
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/storetest"
)

func TestStore(t *testing.T) {
	pgtest.BaseAddr(t) // skip once, not in every subtest, without PostgreSQL
	storetest.Run(t, func(t *testing.T) holomem.Store {
		// The change feed's subtests run alone among PostgreSQL tests
		// (see pgtest.ExclusiveAddr).
		if strings.HasPrefix(t.Name(), "TestStore/Capability/ChangeFeeder/") || strings.HasPrefix(t.Name(), "TestStore/Capability/OwnChangeFeeder/") {
			return mustOpen(t, pgtest.ExclusiveAddr(t))
		}
		return mustOpen(t, pgtest.Addr(t))
	})
}

// mustOpen opens a store at addr and closes it when the test ends.
func mustOpen(tb testing.TB, addr string, opts ...postgres.Option) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(tb.Context(), addr, opts...)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
