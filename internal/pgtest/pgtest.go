// Package pgtest gives tests a PostgreSQL schema of their own. Import it
// only from _test.go files.
//
// The database is named by $HOLOMEM_TEST_POSTGRES (for example
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable); without it the
// tests that need PostgreSQL skip and say how to enable them. `.ci/run`
// starts PostgreSQL and sets the variable.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the variable holding the test database's address.
const EnvVar = "HOLOMEM_TEST_POSTGRES"

// BaseAddr returns the test database's address, or skips tb.
func BaseAddr(tb testing.TB) string {
	tb.Helper()
	addr := os.Getenv(EnvVar)
	if addr == "" {
		tb.Skip("PostgreSQL tests skipped: set " + EnvVar + "=postgres://USER@HOST:5432/DB?sslmode=disable to run them")
	}
	return addr
}

// Addr creates a new empty schema in the test database and returns an
// address whose search_path selects it. The schema and everything in it
// are dropped when tb ends, so tests never see each other's data.
func Addr(tb testing.TB) string {
	tb.Helper()
	base := BaseAddr(tb)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "holomem_test_" + hex.EncodeToString(b[:])
	exec(tb, base, "CREATE SCHEMA "+schema)
	tb.Cleanup(func() { exec(tb, base, "DROP SCHEMA "+schema+" CASCADE") })
	return WithSchema(tb, base, schema)
}

// WithSchema returns addr with search_path set to schema.
func WithSchema(tb testing.TB, addr, schema string) string {
	tb.Helper()
	u, err := url.Parse(addr)
	if err != nil {
		tb.Fatalf("%s: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	// Tests need no durability; without the WAL flush per commit a
	// schema migrates in a fraction of the time.
	if !q.Has("synchronous_commit") {
		q.Set("synchronous_commit", "off")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Exec runs one statement on the test database (outside any test schema).
func exec(tb testing.TB, addr, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, addr)
	if err != nil {
		tb.Fatalf("connect to %s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}
