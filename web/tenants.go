package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/holomem/holomem"
)

// A TokenGrant gives one client token a [holomem.Grant]: the namespaces it
// may read, and whether it may change them. A server shared by tenants
// lists one per tenant (serve --tokens FILE); the server token
// (Options.Token) keeps every right, the web UI included.
type TokenGrant struct {
	Token string `json:"token"`
	holomem.Grant
}

// ReadTokenGrants reads a token file: a JSON array of objects with
// "token" (at least MinRemoteTokenLen characters), "namespaces" (names,
// or "*") and "write" (true to allow changes), and an optional "name".
func ReadTokenGrants(path string) ([]TokenGrant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	var gs []TokenGrant
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gs); err != nil {
		return nil, fmt.Errorf("%w: token file %s: %v (want a JSON array of {\"token\", \"namespaces\", \"write\"})", holomem.ErrInvalid, path, err)
	}
	seen := map[string]bool{}
	for i, g := range gs {
		if len(g.Token) < MinRemoteTokenLen {
			return nil, fmt.Errorf("%w: token file %s: entry %d: a token must be at least %d characters", holomem.ErrInvalid, path, i+1, MinRemoteTokenLen)
		}
		if seen[g.Token] {
			return nil, fmt.Errorf("%w: token file %s: entry %d repeats a token", holomem.ErrInvalid, path, i+1)
		}
		seen[g.Token] = true
		if err := g.Grant.Validate(); err != nil {
			return nil, fmt.Errorf("token file %s: entry %d: %w", path, i+1, err)
		}
	}
	return gs, nil
}

// tenant is one scoped token, known by its digest.
type tenant struct {
	sum   [sha256.Size]byte
	grant *holomem.Grant
}

// tenants finds a request's grant and keeps one MCP handler per grant.
type tenants struct {
	list []tenant
	mu   sync.Mutex
	mcp  map[*holomem.Grant]http.Handler
}

func newTenants(gs []TokenGrant) *tenants {
	t := &tenants{mcp: map[*holomem.Grant]http.Handler{}}
	for _, g := range gs {
		g := g
		t.list = append(t.list, tenant{sum: sha256.Sum256([]byte(g.Token)), grant: &g.Grant})
	}
	return t
}

// grantOf returns the grant of a presented token's digest, nil for none.
// Every entry is compared, so the time taken does not say which matched.
func (t *tenants) grantOf(sum [sha256.Size]byte) *holomem.Grant {
	var found *holomem.Grant
	for _, e := range t.list {
		if subtle.ConstantTimeCompare(sum[:], e.sum[:]) == 1 {
			found = e.grant
		}
	}
	return found
}

// mcpFor returns the MCP handler of a grant, made once by mk.
func (t *tenants) mcpFor(g *holomem.Grant, mk func(*holomem.Grant) http.Handler) http.Handler {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.mcp[g]
	if h == nil {
		h = mk(g)
		t.mcp[g] = h
	}
	return h
}

type writeKey struct{}

// withRequest marks ctx with the request's grant and whether the request
// changes anything (any method but GET and HEAD).
func withRequest(ctx context.Context, r *http.Request, g *holomem.Grant) context.Context {
	if g != nil {
		ctx = holomem.WithGrant(ctx, g)
	}
	return context.WithValue(ctx, writeKey{}, r.Method != http.MethodGet && r.Method != http.MethodHead)
}

// allowNS checks the request's grant (if any) for namespace ns.
func allowNS(ctx context.Context, ns string) error {
	write, _ := ctx.Value(writeKey{}).(bool)
	return holomem.GrantFrom(ctx).Check(ns, write)
}
