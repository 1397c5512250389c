package web_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/web"
)

// Each case failed before the fix it names (issue 13's probe of the binary).
func TestServer_Hardening(t *testing.T) {
	e := newEnv(t, web.Options{Token: "s3cret"})
	e.do("POST", "/api/facts", map[string]any{"content": "Alice deploys nginx"})

	t.Run("UncleanPathNoRedirectBeforeAuth", func(t *testing.T) {
		for _, p := range []string{"/api//recall", "/api/../api/recall", "/api/./stats"} {
			req, _ := http.NewRequest("POST", e.ts.URL+p, strings.NewReader(`{"text":"x"}`))
			c := *e.ts.Client()
			c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("POST %s: status %d, want 404 (no redirect)", p, resp.StatusCode)
			}
		}
	})

	t.Run("InvalidUTF8Rejected", func(t *testing.T) {
		fails(t, e.do("POST", "/api/facts", "{\"content\":\"bad \xff\xfe byte\"}"), http.StatusBadRequest, "bad_request")
		fails(t, e.do("POST", "/api/recall", "{\"text\":\"\xc3\"}"), http.StatusBadRequest, "bad_request")
	})

	t.Run("StatsHidePath", func(t *testing.T) {
		st := ok[holomem.Stats](t, e.do("GET", "/api/stats", nil), http.StatusOK)
		if st.Path != "" {
			t.Errorf("stats expose the database path %q", st.Path)
		}
	})

	t.Run("AlgebraLimits", func(t *testing.T) {
		fails(t, e.do("GET", "/api/probe?entity=Alice&limit=100000000", nil), http.StatusBadRequest, "invalid")
		fails(t, e.do("GET", "/api/related?entity=Alice&limit=100000000", nil), http.StatusBadRequest, "invalid")
		fails(t, e.do("GET", "/api/reason?entity=Alice"+strings.Repeat("&entity=Alice", holomem.MaxEntities), nil), http.StatusBadRequest, "invalid")
		fails(t, e.do("POST", "/api/recall", `{"text":"nginx","weights":{"fts":1e308,"jaccard":1e308,"hrr":1e308}}`), http.StatusBadRequest, "invalid")
	})

	t.Run("401BeforeBody", func(t *testing.T) {
		// A body announced and never sent: the 401 must come without
		// waiting for it.
		conn, err := net.Dial("tcp", e.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_, err = conn.Write([]byte("POST /api/recall HTTP/1.1\r\nHost: " + e.ts.Listener.Addr().String() +
			"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"))
		if err != nil {
			t.Fatal(err)
		}
		// A guard against hanging forever, not a timing assertion.
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer without the body: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", resp.StatusCode)
		}
	})
}
