package retrieve

import (
	"context"

	"github.com/holomem/holomem"
)

// The memory enforces the grant a context carries (holomem.WithGrant) on
// every operation, whichever door asked: a server shared by tenants scopes
// each token's requests to its namespaces, and a door that forgot to check
// would still be refused here.

// allow checks the context's grant for namespace ns ("" = the default).
func allow(ctx context.Context, ns string, write bool) error {
	g := holomem.GrantFrom(ctx)
	if g == nil {
		return nil
	}
	if ns == "" {
		ns = holomem.DefaultNamespace
	}
	return g.Check(ns, write)
}

// allowFacts checks the grant for the namespaces of the facts ids name
// (write access); an id that names no fact is left for the operation to
// report. Without a grant it reads nothing.
func (m *Memory) allowFacts(ctx context.Context, ids ...int64) error {
	if holomem.GrantFrom(ctx) == nil {
		return nil
	}
	for _, id := range ids {
		f, err := m.store.FindFactByID(ctx, id)
		if err != nil {
			continue
		}
		if err := allow(ctx, f.Namespace, true); err != nil {
			return err
		}
	}
	return nil
}
