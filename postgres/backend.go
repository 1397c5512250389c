package postgres

import (
	"context"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
)

// PostgreSQL opens postgres:// and postgresql:// addresses. A one-shot
// process needs no option: the pool opens connections as they are used.
func init() {
	backend.Register(backend.Backend{
		Name:    "postgres",
		Schemes: []string{"postgres://", "postgresql://"},
		Open: func(ctx context.Context, addr string, _ backend.Options) (holomem.Store, error) {
			s, err := Open(ctx, addr)
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			return s, nil
		},
		Redact: Redact,
	})
}
