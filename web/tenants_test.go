package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// TestServer_Tenants: a token scoped to a namespace can neither read,
// change nor detect another namespace's facts, on the API and over MCP;
// a read-only token changes nothing; the server token keeps every right.
// HOLOMEM_TEST_STORE=postgres runs it on PostgreSQL.
func TestServer_Tenants(t *testing.T) {
	const (
		admin  = "server-token-0123456789abcdef0123456789abcdef"
		alpha  = "alpha-token-0123456789abcdef0123456789abcdef"
		beta   = "beta-token-0123456789abcdef0123456789abcdef0"
		reader = "reader-token-0123456789abcdef0123456789abcde"
	)
	file := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(file, []byte(`[
		{"name": "alpha", "token": "`+alpha+`", "namespaces": ["alpha"], "write": true},
		{"name": "beta", "token": "`+beta+`", "namespaces": ["beta"], "write": true},
		{"name": "auditor", "token": "`+reader+`", "namespaces": ["alpha"]}
	]`), 0o600); err != nil {
		t.Fatal(err)
	}
	grants, err := web.ReadTokenGrants(file)
	if err != nil {
		t.Fatal(err)
	}
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	opts := web.Options{Token: admin, Grants: grants,
		MCP: mcpserver.New(mem, st, mcpserver.Options{}).Handler(),
		MCPFor: func(g *holomem.Grant) http.Handler {
			return mcpserver.New(mem, st, mcpserver.Options{Namespace: g.Namespaces[0], Grant: g}).Handler()
		}}
	ts := httptest.NewServer(web.NewServer(mem, st, opts))
	defer ts.Close()
	as := func(tok string) *env { return &env{t: t, ts: ts, store: st, token: tok} }

	secret := ok[holomem.Remembered](t, as(alpha).do("POST", "/api/facts", map[string]any{"namespace": "alpha", "content": "Project Falcon launches on March 3"}), http.StatusCreated).Fact
	ok[holomem.Remembered](t, as(beta).do("POST", "/api/facts", map[string]any{"namespace": "beta", "content": "Beta deploys on Fridays"}), http.StatusCreated)
	idPath := "/api/facts/" + itoa(secret.ID)

	// Beta cannot read, change or detect alpha's fact.
	for _, req := range []struct {
		method, path string
		body         any
	}{
		{"GET", idPath + "?namespace=alpha", nil},
		{"GET", "/api/facts?namespace=alpha", nil},
		{"GET", "/api/recall?q=Falcon&namespace=alpha", nil},
		{"GET", "/api/probe?entity=Falcon&namespace=alpha", nil},
		{"GET", "/api/stats?namespace=alpha", nil},
		{"PATCH", idPath + "?namespace=alpha", map[string]any{"content": "hijacked"}},
		{"DELETE", idPath + "?namespace=alpha", nil},
		{"POST", idPath + "/feedback?namespace=alpha", map[string]any{"helpful": false}},
		{"POST", "/api/facts", map[string]any{"namespace": "alpha", "content": "planted by beta"}},
	} {
		r := as(beta).do(req.method, req.path, req.body)
		if r.status != http.StatusForbidden {
			t.Errorf("beta %s %s: %d %s, want 403", req.method, req.path, r.status, r.body)
		}
	}
	// In its own namespace beta sees its facts and nothing of alpha's,
	// not even a hint that alpha's words match.
	res := ok[holomem.Result](t, as(beta).do("GET", "/api/recall?q=Falcon+launches", nil), http.StatusOK)
	if len(res.Hits) != 0 || len(res.Elsewhere) != 0 || strings.Contains(strings.Join(res.Notes, " "), "alpha") {
		t.Errorf("beta's recall reveals alpha: %+v", res)
	}
	for _, path := range []string{idPath, idPath + "?namespace=beta"} {
		if r := as(beta).do("GET", path, nil); r.status != http.StatusNotFound {
			t.Errorf("beta GET %s: %d, want 404 (no such fact in beta)", path, r.status)
		}
	}
	// The server token still sees everything and is told where words match.
	res = ok[holomem.Result](t, as(admin).do("GET", "/api/recall?q=Falcon+launches&namespace=beta", nil), http.StatusOK)
	if len(res.Elsewhere) != 1 || res.Elsewhere[0].Namespace != "alpha" {
		t.Errorf("the server token's recall in beta should point to alpha: %+v", res.Elsewhere)
	}
	// The read-only token reads alpha and changes nothing.
	ok[holomem.Fact](t, as(reader).do("GET", idPath+"?namespace=alpha", nil), http.StatusOK)
	if r := as(reader).do("PATCH", idPath+"?namespace=alpha", map[string]any{"content": "edited"}); r.status != http.StatusForbidden {
		t.Errorf("read-only PATCH: %d %s, want 403", r.status, r.body)
	}
	if r := as(reader).do("POST", "/api/facts", map[string]any{"namespace": "alpha", "content": "added by the auditor"}); r.status != http.StatusForbidden {
		t.Errorf("read-only POST: %d %s, want 403", r.status, r.body)
	}
	if f := ok[holomem.Fact](t, as(admin).do("GET", idPath+"?namespace=alpha", nil), http.StatusOK); f.Content != secret.Content || f.Trust != secret.Trust {
		t.Errorf("alpha's fact changed: %+v", f)
	}

	// MCP over HTTP with beta's token: its own namespace works, alpha's is
	// refused, and a recall in beta holds nothing of alpha.
	hc := &http.Client{Transport: bearer{token: beta, next: http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tenant", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	if r := call("remember", map[string]any{"content": "Beta's staging runs on db-7"}); r.IsError {
		t.Errorf("beta remember over MCP: %+v", r.Content)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"recall", map[string]any{"query": "Falcon", "namespace": "alpha"}},
		{"get", map[string]any{"id": secret.ID, "namespace": "alpha"}},
		{"forget", map[string]any{"id": secret.ID, "namespace": "alpha"}},
		{"remember", map[string]any{"content": "planted over MCP", "namespace": "alpha"}},
		{"probe", map[string]any{"entity": "Falcon", "namespace": "alpha"}},
		{"list", map[string]any{"namespace": "alpha"}},
		{"status", map[string]any{"namespace": "alpha"}},
	} {
		r := call(c.name, c.args)
		b, _ := json.Marshal(r.Content)
		if !r.IsError || !strings.Contains(string(b), "forbidden") {
			t.Errorf("beta %s in alpha over MCP: %s, want a forbidden error", c.name, b)
		}
	}
	r := call("recall", map[string]any{"query": "Falcon launches"})
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "alpha") || strings.Contains(string(b), "Falcon launches on") {
		t.Errorf("beta's MCP recall reveals alpha: %s", b)
	}
	if f := ok[holomem.Fact](t, as(admin).do("GET", idPath+"?namespace=alpha", nil), http.StatusOK); f.Content != secret.Content {
		t.Errorf("alpha's fact changed over MCP: %+v", f)
	}
}

func itoa(id int64) string { return jsonNum(id) }

func jsonNum(id int64) string { b, _ := json.Marshal(id); return string(b) }
