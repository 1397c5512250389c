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
	hold(tb, base, false)
	return newSchema(tb, base)
}

// ExclusiveAddr is Addr for a test that no other PostgreSQL test may run
// beside, in any package: the change feed's tests, whose cursor is the
// oldest transaction open anywhere on the server (its snapshot xmin), so
// another test's open transaction would hold their own writes back and
// make them report a change twice. Every Addr holds a shared advisory lock
// for its test's duration and ExclusiveAddr the exclusive one; go test runs
// packages in parallel, so this is what keeps them apart. A test holding
// ExclusiveAddr must not also call Addr.
func ExclusiveAddr(tb testing.TB) string {
	tb.Helper()
	base := BaseAddr(tb)
	hold(tb, base, true)
	return newSchema(tb, base)
}

// lockKey is the advisory lock the tests share ("holomem" in ASCII).
const lockKey = 0x686f6c6f6d656d

// hold takes the tests' advisory lock, shared or exclusive, on a session
// of its own that ends (releasing it) when tb ends. The session holds no
// transaction open, so it does not hold the feed's cursor back.
func hold(tb testing.TB, base string, exclusive bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("connect to %s: %v", EnvVar, err)
	}
	q := "SELECT pg_advisory_lock_shared($1)"
	if exclusive {
		q = "SELECT pg_advisory_lock($1)"
	}
	if _, err := conn.Exec(ctx, q, int64(lockKey)); err != nil {
		conn.Close(context.Background())
		tb.Fatalf("take the tests' advisory lock: %v", err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
}

// newSchema creates an empty schema dropped when tb ends and returns an
// address selecting it.
func newSchema(tb testing.TB, base string) string {
	tb.Helper()
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

// StandbyEnvVar names the variable holding the address of a hot standby
// of the test database's server (scripts/postgres/standby.sh makes one
// and prints it); tests of read standbys skip without it.
const StandbyEnvVar = "HOLOMEM_TEST_POSTGRES_STANDBY"

// StandbyHost returns the standby's HOST:PORT, or skips tb.
func StandbyHost(tb testing.TB) string {
	tb.Helper()
	addr := os.Getenv(StandbyEnvVar)
	if addr == "" {
		tb.Skip("read-standby tests skipped: run scripts/postgres/standby.sh (as root, on a throwaway machine) and set " + StandbyEnvVar + " to the address it prints")
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		tb.Fatalf("%s=%q is not a postgres:// address", StandbyEnvVar, addr)
	}
	return u.Host
}
