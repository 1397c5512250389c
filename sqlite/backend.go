package sqlite

import (
	"context"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
)

// oneShotCachePages is the page cache of a store opened for a one-shot
// process (see WithPageCache and backend.Options.OneShot): 32 pages
// measured faster than 16, 64, 128 and the default in `holomem bench hook`.
const oneShotCachePages = 32

// SQLite opens "sqlite:PATH" and plain file paths.
func init() {
	backend.Register(backend.Backend{
		Name:    "sqlite",
		Schemes: []string{"sqlite:"},
		File:    true,
		Open: func(ctx context.Context, addr string, o backend.Options) (holomem.Store, error) {
			var opts []Option
			if o.OneShot {
				opts = append(opts, WithOneConnection(), WithPageCache(oneShotCachePages))
			}
			s, err := Open(ctx, backend.Path(addr), opts...)
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			return s, nil
		},
	})
}
