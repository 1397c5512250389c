package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

const longToken = "0123456789abcdef0123456789abcdef"

func get(t *testing.T, c *http.Client, u string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestRemote_TokenGuardsEveryPath: with a token, /healthz answers a bare
// "ok" (no version) to anyone and its detail to the token; /static/ lists
// no directory and serves nothing but the login page's assets without the
// token.
func TestRemote_TokenGuardsEveryPath(t *testing.T) {
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{Token: longToken, Version: "v9.9.9"}))
	defer ts.Close()
	c := ts.Client()
	resp, body := get(t, c, ts.URL+"/healthz")
	if resp.StatusCode != 200 || strings.TrimSpace(body) != "ok" {
		t.Errorf("bare healthz: %d %q", resp.StatusCode, body)
	}
	resp, body = get(t, c, ts.URL+"/healthz", "Authorization", "Bearer "+longToken)
	if resp.StatusCode != 200 || !strings.Contains(body, "v9.9.9") {
		t.Errorf("healthz with the token: %d %q", resp.StatusCode, body)
	}
	for _, p := range []string{"/static/", "/static/htmx.LICENSE", "/static/nope.css"} {
		if resp, body := get(t, c, ts.URL+p); resp.StatusCode != 401 {
			t.Errorf("%s without the token: %d %q", p, resp.StatusCode, body)
		}
	}
	for _, p := range []string{"/static/style.css", "/static/htmx.min.js"} {
		if resp, _ := get(t, c, ts.URL+p); resp.StatusCode != 200 {
			t.Errorf("login page asset %s: %d", p, resp.StatusCode)
		}
	}
	// With the token: files yes, listings never.
	if resp, _ := get(t, c, ts.URL+"/static/htmx.LICENSE", "Authorization", "Bearer "+longToken); resp.StatusCode != 200 {
		t.Errorf("asset with the token: %d", resp.StatusCode)
	}
	if resp, body := get(t, c, ts.URL+"/static/", "Authorization", "Bearer "+longToken); resp.StatusCode != 404 || strings.Contains(body, "style.css") {
		t.Errorf("directory listing with the token: %d %q", resp.StatusCode, body)
	}
	// Without a token (loopback), no listing either.
	mem2, st2 := testutil.MustOpenMemory(t, retrieve.Options{})
	open := httptest.NewServer(web.NewServer(mem2, st2, web.Options{}))
	defer open.Close()
	if resp, body := get(t, open.Client(), open.URL+"/static/"); resp.StatusCode != 404 || strings.Contains(body, "style.css") {
		t.Errorf("directory listing without a token: %d %q", resp.StatusCode, body)
	}
}

// loginForm posts a token to /login with a fresh CSRF cookie and field,
// from the given forwarded headers.
func loginForm(t *testing.T, ts *httptest.Server, token string, hdr ...string) *http.Response {
	t.Helper()
	c := ts.Client()
	resp, body := get(t, c, ts.URL+"/login")
	var csrf *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name != "" && strings.Contains(strings.ToLower(ck.Name), "csrf") {
			csrf = ck
		}
	}
	i := strings.Index(body, `name="csrf" value="`)
	if csrf == nil || i < 0 {
		t.Fatalf("login page without a CSRF cookie or field: %v\n%s", resp.Cookies(), body)
	}
	field := body[i+len(`name="csrf" value="`):]
	field = field[:strings.IndexByte(field, '"')]
	form := url.Values{"token": {token}, "csrf": {field}, "next": {"/"}}
	req, _ := http.NewRequest("POST", ts.URL+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(csrf)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	nc := *c
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := nc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestRemote_LoginThrottledAndSecureCookie: five wrong tokens from one
// address, then 429 even for the right one; the session cookie is Secure
// when a trusted proxy says the browser used https, and not when an
// untrusted client claims it.
func TestRemote_LoginThrottledAndSecureCookie(t *testing.T) {
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{Token: longToken, TrustedProxies: []string{"127.0.0.1"}}))
	defer ts.Close()
	for i := range 5 {
		if resp := loginForm(t, ts, "wrong guess", "X-Forwarded-For", "203.0.113.7"); resp.StatusCode != 401 {
			t.Fatalf("wrong token %d: %d", i, resp.StatusCode)
		}
	}
	if resp := loginForm(t, ts, longToken, "X-Forwarded-For", "203.0.113.7"); resp.StatusCode != 429 {
		t.Errorf("sixth try within the minute: %d, want 429", resp.StatusCode)
	}
	// Another client is not held up by the first one's guesses, and over
	// https (through the trusted proxy) its session cookie is Secure.
	resp := loginForm(t, ts, longToken, "X-Forwarded-For", "203.0.113.8", "X-Forwarded-Proto", "https")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("right token from another client: %d", resp.StatusCode)
	}
	for _, ck := range resp.Cookies() {
		if !ck.Secure {
			t.Errorf("cookie %s not Secure behind a TLS proxy", ck.Name)
		}
	}

	// Not a trusted proxy: X-Forwarded-Proto is not believed.
	mem2, st2 := testutil.MustOpenMemory(t, retrieve.Options{})
	plain := httptest.NewServer(web.NewServer(mem2, st2, web.Options{Token: longToken}))
	defer plain.Close()
	resp = loginForm(t, plain, longToken, "X-Forwarded-Proto", "https")
	for _, ck := range resp.Cookies() {
		if ck.Secure {
			t.Errorf("cookie %s Secure on the word of an untrusted client", ck.Name)
		}
	}
	// Directly over TLS the cookie is Secure.
	mem3, st3 := testutil.MustOpenMemory(t, retrieve.Options{})
	tlsSrv := httptest.NewTLSServer(web.NewServer(mem3, st3, web.Options{Token: longToken}))
	defer tlsSrv.Close()
	resp = loginForm(t, tlsSrv, longToken)
	if len(resp.Cookies()) == 0 {
		t.Fatal("no session cookie over TLS")
	}
	for _, ck := range resp.Cookies() {
		if !ck.Secure {
			t.Errorf("cookie %s not Secure over TLS", ck.Name)
		}
	}
}
