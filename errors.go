package holomem

import "github.com/holomem/holomem/errs"

// Sentinel errors, the same values as package errs (which leaf packages
// import without the domain); every layer wraps them with what it was
// doing, so callers use errors.Is, and transports map them to status codes
// in one place each. See errs for what each means.
var (
	ErrNotFound      = errs.ErrNotFound
	ErrInvalid       = errs.ErrInvalid
	ErrConflict      = errs.ErrConflict
	ErrNoEmbedder    = errs.ErrNoEmbedder
	ErrSchema        = errs.ErrSchema
	ErrStorageFull   = errs.ErrStorageFull
	ErrStoreMoved    = errs.ErrStoreMoved
	ErrForbidden     = errs.ErrForbidden
	ErrUnavailable   = errs.ErrUnavailable
	ErrChangesPruned = errs.ErrChangesPruned
)
