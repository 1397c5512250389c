package main

import (
	"context"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	_ "github.com/holomem/holomem/postgres" // registers postgres:// and postgresql://
	_ "github.com/holomem/holomem/sqlite"   // registers sqlite: and file paths
)

// openStore opens the store a --db value names, with the backend
// registered for its scheme (see package backend): a postgres:// or
// postgresql:// address opens PostgreSQL, "sqlite:PATH" or a path an
// SQLite file, and any other scheme:// is an error. oneConnection opens
// the store for a one-shot process (see app.oneConnection).
func openStore(ctx context.Context, addr string, oneConnection bool) (holomem.Store, error) {
	return backend.Open(ctx, addr, backend.Options{OneShot: oneConnection})
}

// sqlitePath is the file path of an SQLite address (its optional
// "sqlite:" scheme removed).
func sqlitePath(addr string) string { return backend.Path(addr) }

// displayAddr is an address fit for messages: a PostgreSQL password is
// masked.
func displayAddr(addr string) string { return backend.Redact(addr) }
