package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// TestServer_DatabaseOutage: with PostgreSQL unreachable, /healthz says so
// (503, not 200 "ok") and requests answer 503 with Retry-After and code
// "unavailable" (not a silent 500); when the database is back, both
// recover without a restart.
func TestServer_DatabaseOutage(t *testing.T) {
	base := pgtest.Addr(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	px := pgtest.StartProxy(t, u.Host, "127.0.0.1:0")
	listenAt := px.Addr()
	u.Host = listenAt
	st, err := postgres.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mem, err := retrieve.New(st, retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{Health: st.Health}))
	t.Cleanup(ts.Close)
	e := &env{t: t, ts: ts, store: st}
	e.remember("The billing service runs on port 8443")

	if r := e.do("GET", "/healthz", nil); r.status != http.StatusOK {
		t.Fatalf("/healthz before the outage = %d %s", r.status, r.body)
	}
	px.Cut()
	r := e.do("GET", "/healthz", nil)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("/healthz in the outage = %d (Retry-After %q) %s, want 503 with Retry-After", r.status, r.header.Get("Retry-After"), r.body)
	}
	for _, req := range []struct{ method, path string }{
		{"GET", "/api/facts/1"},
		{"GET", "/api/facts"},
		{"GET", "/api/recall?q=billing+port"},
	} {
		r := e.do(req.method, req.path, nil)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("%s %s in the outage = %d (Retry-After %q) %s, want 503 with Retry-After", req.method, req.path, r.status, r.header.Get("Retry-After"), r.body)
			continue
		}
		fails(t, r, http.StatusServiceUnavailable, "unavailable")
	}
	px.Listen(listenAt)
	if r := e.do("GET", "/healthz", nil); r.status != http.StatusOK {
		t.Errorf("/healthz after the outage = %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/api/facts/1", nil); r.status != http.StatusOK {
		t.Errorf("GET /api/facts/1 after the outage = %d %s", r.status, r.body)
	}
}
