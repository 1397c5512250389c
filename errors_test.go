package holomem

import (
	"errors"
	"fmt"
	"testing"

	"github.com/holomem/holomem/errs"
)

// A leaf package returns errs' values; callers test them with the root's
// names, so each pair must be the same value.
func TestErrorsAreErrsValues(t *testing.T) {
	for _, tc := range []struct{ root, leaf error }{
		{ErrNotFound, errs.NotFound}, {ErrInvalid, errs.Invalid}, {ErrConflict, errs.Conflict},
		{ErrNoEmbedder, errs.NoEmbedder}, {ErrSchema, errs.Schema}, {ErrStorageFull, errs.StorageFull},
		{ErrStoreMoved, errs.StoreMoved}, {ErrForbidden, errs.Forbidden}, {ErrUnavailable, errs.Unavailable},
		{ErrChangesPruned, errs.ChangesPruned},
	} {
		if !errors.Is(fmt.Errorf("spm: %w", tc.leaf), tc.root) {
			t.Errorf("%v wrapped is not %v", tc.leaf, tc.root)
		}
	}
}
