package main

import (
	"context"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/sqlite"
)

// openStore opens the store a --db value names: a postgres:// or
// postgresql:// address opens PostgreSQL, "sqlite:PATH" or any other value
// an SQLite file (the default).
// openStore opens the store at addr; oneConnection opens an SQLite file
// with one connection (see app.oneConnection).
func openStore(ctx context.Context, addr string, oneConnection bool) (holomem.Store, error) {
	if postgres.IsAddress(addr) {
		return postgres.Open(ctx, addr)
	}
	var opts []sqlite.Option
	if oneConnection {
		opts = append(opts, sqlite.WithOneConnection(), sqlite.WithPageCache(oneShotCachePages))
	}
	return sqlite.Open(ctx, sqlitePath(addr), opts...)
}

// oneShotCachePages is the SQLite page cache of a one-shot process (see
// sqlite.WithPageCache): 32 pages measured faster than 16, 64, 128 and
// the default in `holomem bench hook`.
const oneShotCachePages = 32

// sqlitePath strips the optional "sqlite:" scheme of an SQLite address.
func sqlitePath(addr string) string {
	if p, ok := strings.CutPrefix(addr, "sqlite:"); ok {
		return p
	}
	return addr
}

// displayAddr is an address fit for messages: a PostgreSQL password is
// masked.
func displayAddr(addr string) string {
	if postgres.IsAddress(addr) {
		return postgres.Redact(addr)
	}
	return addr
}
