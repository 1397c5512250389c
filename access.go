package holomem

import (
	"context"
	"fmt"
	"slices"
)

// A Grant is what a caller may do, for servers that give several clients
// their own namespaces: a team's replicas shared by tenants who must not
// see each other. A nil Grant allows everything (the one server token, or
// no token on loopback).
type Grant struct {
	// Name labels the grant in logs and errors (never the token).
	Name string `json:"name,omitempty"`
	// Namespaces the grant covers; "*" covers every namespace.
	Namespaces []string `json:"namespaces"`
	// Write allows changing facts and edges in those namespaces; without
	// it the grant reads only.
	Write bool `json:"write,omitempty"`
}

// covers reports whether the grant names ns.
func (g *Grant) covers(ns string) bool {
	return slices.Contains(g.Namespaces, "*") || slices.Contains(g.Namespaces, ns)
}

// CanRead reports whether the grant may read namespace ns.
func (g *Grant) CanRead(ns string) bool { return g == nil || g.covers(ns) }

// CanWrite reports whether the grant may change namespace ns.
func (g *Grant) CanWrite(ns string) bool { return g == nil || (g.Write && g.covers(ns)) }

// Check returns an error wrapping [ErrForbidden] unless the grant may read
// (write false) or change (write true) namespace ns.
func (g *Grant) Check(ns string, write bool) error {
	if write && !g.CanWrite(ns) {
		return fmt.Errorf("%w: this token may not change namespace %q", ErrForbidden, ns)
	}
	if !g.CanRead(ns) {
		return fmt.Errorf("%w: this token may not read namespace %q", ErrForbidden, ns)
	}
	return nil
}

// Validate checks a grant read from a token file.
func (g *Grant) Validate() error {
	if len(g.Namespaces) == 0 {
		return fmt.Errorf("%w: grant %q names no namespace (use \"*\" for all)", ErrInvalid, g.Name)
	}
	for _, ns := range g.Namespaces {
		if err := validateLabel("namespace", ns); err != nil || ns == "" {
			return fmt.Errorf("%w: grant %q: namespace %q is not a namespace", ErrInvalid, g.Name, ns)
		}
	}
	return nil
}

type grantKey struct{}

// WithGrant returns ctx carrying g: the library's doors (recall's "found
// elsewhere" hint among them) then show only what g may read.
func WithGrant(ctx context.Context, g *Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// GrantFrom returns the grant ctx carries, nil (everything) when none.
func GrantFrom(ctx context.Context) *Grant {
	g, _ := ctx.Value(grantKey{}).(*Grant)
	return g
}
