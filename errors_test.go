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
		{ErrNotFound, errs.ErrNotFound}, {ErrInvalid, errs.ErrInvalid}, {ErrConflict, errs.ErrConflict},
		{ErrNoEmbedder, errs.ErrNoEmbedder}, {ErrSchema, errs.ErrSchema}, {ErrStorageFull, errs.ErrStorageFull},
		{ErrStoreMoved, errs.ErrStoreMoved}, {ErrForbidden, errs.ErrForbidden}, {ErrUnavailable, errs.ErrUnavailable},
		{ErrChangesPruned, errs.ErrChangesPruned},
	} {
		if !errors.Is(fmt.Errorf("spm: %w", tc.leaf), tc.root) {
			t.Errorf("%v wrapped is not %v", tc.leaf, tc.root)
		}
	}
}
