package holomem

import "github.com/holomem/holomem/errs"

// Sentinel errors, the same values as package errs (which leaf packages
// import without the domain); every layer wraps them with what it was
// doing, so callers use errors.Is, and transports map them to status codes
// in one place each. See errs for what each means.
var (
	ErrNotFound      = errs.NotFound
	ErrInvalid       = errs.Invalid
	ErrConflict      = errs.Conflict
	ErrNoEmbedder    = errs.NoEmbedder
	ErrSchema        = errs.Schema
	ErrStorageFull   = errs.StorageFull
	ErrStoreMoved    = errs.StoreMoved
	ErrForbidden     = errs.Forbidden
	ErrUnavailable   = errs.Unavailable
	ErrChangesPruned = errs.ChangesPruned
)
