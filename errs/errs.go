// Package errs holds holomem's sentinel errors, so that leaf packages (the
// tokenizer, the encoder, the model hub) can return them without importing
// the domain. The root package re-exports each one under its Err name
// (holomem.ErrNotFound is errs.ErrNotFound): errors.Is works with either.
package errs

import "errors"

// Sentinel errors. Every layer wraps them with what it was doing, so callers
// use errors.Is; transports map them to status codes in one place each.
var (
	// ErrNotFound means the fact, edge, entity or model asked for does not exist.
	ErrNotFound = errors.New("holomem: not found")
	// ErrInvalid means the caller's input was rejected; the message says what to fix.
	ErrInvalid = errors.New("holomem: invalid input")
	// ErrConflict means the write collides with existing data (for example an
	// external key already used by another fact).
	ErrConflict = errors.New("holomem: conflict")
	// ErrNoEmbedder means a semantic operation was asked for but no embedding
	// model is installed; run `holomem model pull` to get one.
	ErrNoEmbedder = errors.New("holomem: no embedding model")
	// ErrSchema means the database file is not a holomem store, or was written
	// by a newer holomem than this one.
	ErrSchema = errors.New("holomem: unsupported database")
	// ErrStorageFull means a write failed because the file system holding
	// the store is full (or the store is read-only): nothing was written,
	// nothing acknowledged is lost, and the fix is the operator's (free
	// space, or point --db elsewhere), so transports say so instead of
	// "internal error".
	ErrStorageFull = errors.New("holomem: storage full or read-only: free disk space (or make the database writable) and retry")
	// ErrStoreMoved means the database file was deleted or replaced (a
	// restore, a copy over it, rm) while this process had it open: its
	// writes would land in a file no one reads any more, so they are
	// refused until the process is restarted and opens the file now at
	// the path.
	ErrStoreMoved = errors.New("holomem: the database file was deleted or replaced while open: writes are refused; restart holomem to open the file now at the path")
	// ErrForbidden means the caller's grant does not cover the namespace
	// or the operation (see holomem.Grant); nothing was read or changed.
	ErrForbidden = errors.New("holomem: forbidden")
	// ErrUnavailable means the database server cannot be reached (it is
	// down, restarting or refusing connections): nothing was done, and the
	// same request may succeed shortly, so transports answer "retry"
	// (HTTP 503 with Retry-After) rather than "internal error".
	ErrUnavailable = errors.New("holomem: the database is unreachable; retry shortly")
	// ErrChangesPruned means a change feed cannot say what changed since
	// the cursor given: the changes were pruned, more than
	// MaxFactChanges are pending, or the cursor is not from this database.
	// The caller reloads everything and continues from the next cursor
	// returned with it (see holomem.ChangeFeeder).
	ErrChangesPruned = errors.New("holomem: changes since the cursor are no longer known: reload")
)
