package web_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// formPaths are the state-changing forms of the UI; FuzzUI_Forms picks one
// by index ({id} is the fuzzed fact id).
var formPaths = []string{
	"/facts/{id}/edit",
	"/facts/{id}/feedback",
	"/facts/{id}/forget",
	"/facts/{id}/supersede",
	"/facts/{id}/link",
	"/add",
	"/import",
	"/login",
}

// formClient holds a browser's CSRF cookie and the token of its forms.
type formClient struct {
	h      http.Handler
	cookie *http.Cookie
	token  string
}

func newFormClient(t testing.TB, h http.Handler) *formClient {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/add", nil))
	m := csrfRE.FindSubmatch(rec.Body.Bytes())
	cs := rec.Result().Cookies()
	if m == nil || len(cs) == 0 {
		t.Fatalf("GET /add: no CSRF token or cookie: %d %.300s", rec.Code, rec.Body)
	}
	return &formClient{h: h, cookie: cs[0], token: string(m[1])}
}

// post sends body as a url-encoded form with a valid token in front of it.
func (c *formClient) post(path, body string) *httptest.ResponseRecorder {
	req, err := http.NewRequest("POST", "http://127.0.0.1"+path, strings.NewReader("csrf="+c.token+"&"+body))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(c.cookie)
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return rec
}

var errorTextRE = regexp.MustCompile(`(?s)<p[^>]*id="error"[^>]*>(.*?)</p>`)

// checkFormAnswer is the contract of every form: a redirect or a page, or
// a 4xx page that says what was wrong; never a 5xx.
func checkFormAnswer(t *testing.T, path, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	switch {
	case rec.Code == http.StatusOK, rec.Code == http.StatusSeeOther:
	case rec.Code >= 400 && rec.Code < 500:
		m := errorTextRE.FindSubmatch(rec.Body.Bytes())
		if m == nil || len(bytes.TrimSpace(m[1])) < 10 || bytes.Contains(m[1], []byte("internal error")) {
			t.Fatalf("POST %s %q: %d without a clear message: %.500s", path, body, rec.Code, rec.Body)
		}
	default:
		t.Fatalf("POST %s %q: status %d: %.500s", path, body, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusSeeOther && !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("POST %s %q: Content-Type %q", path, body, ct)
	}
}

// FuzzUI_Forms posts form-encoded bodies, with a valid CSRF token, to every
// state-changing form of the UI over a real SQLite store: no panic, no 5xx,
// and every refusal is a 4xx page with a message. The seed corpus is
// testdata/fuzz/FuzzUI_Forms plus the f.Add cases below.
func FuzzUI_Forms(f *testing.F) {
	f.Add(uint8(0), "1", "content=Alice+drinks+green+tea&category=preference&tags=a,+b")
	f.Add(uint8(0), "1", "content=&category=")
	f.Add(uint8(0), "1", "category="+strings.Repeat("x", 300))
	f.Add(uint8(1), "1", "helpful=true")
	f.Add(uint8(1), "2", "helpful=maybe")
	f.Add(uint8(2), "3", "confirm=no")
	f.Add(uint8(3), "2", "old=%231")
	f.Add(uint8(3), "1", "new=-5")
	f.Add(uint8(3), "1", "old=1")
	f.Add(uint8(4), "1", "to=2&kind=causal")
	f.Add(uint8(4), "1", "to=99999999999999999999&kind=causal")
	f.Add(uint8(4), "2", "to=1&kind=similar_to")
	f.Add(uint8(5), "", "content=Bob+uses+vim&action=save&namespace=team")
	f.Add(uint8(5), "", "content=%ff%fe&action=check")
	f.Add(uint8(5), "", "content=x&namespace="+strings.Repeat("n", 200))
	f.Add(uint8(6), "", "kind=markdown")
	f.Add(uint8(7), "", "token=nope&next=//evil")
	f.Add(uint8(0), "0", "content=a%zzb")
	f.Add(uint8(1), "9223372036854775807", "helpful=true")
	f.Add(uint8(2), "-1", "confirm=yes")
	mem, st := testutil.MustOpenMemory(f, retrieve.Options{})
	for _, c := range []string{"Alice drinks tea", "Alice drinks coffee now", "The build uses Go 1.25", "Bob prefers vim"} {
		if _, err := mem.Remember(f.Context(), &holomem.Fact{Content: c}); err != nil {
			f.Fatal(err)
		}
	}
	h := web.NewServer(mem, st, web.Options{MaxBodyBytes: 64 << 10})
	c := newFormClient(f, h)
	f.Fuzz(func(t *testing.T, which uint8, id, body string) {
		if strings.ContainsAny(id, "/?#%") || id == "" || id == "." || id == ".." {
			return // the mux routes such paths elsewhere (or cleans them): not a form
		}
		path := strings.ReplaceAll(formPaths[int(which)%len(formPaths)], "{id}", url.PathEscape(id))
		rec := c.post(path, body)
		if rec == nil {
			return // not a URL a client can send
		}
		checkFormAnswer(t, path, body, rec)
	})
}

// TestUI_FormBodies checks the refusals the fuzz target relies on.
func TestUI_FormBodies(t *testing.T) {
	b := newBrowser(t, web.Options{MaxBodyBytes: 1 << 10})
	id := b.remember("Alice drinks tea")
	tok := b.csrf("/add")
	tests := []struct {
		name, path, body string
		ctype            string
		status           int
		msg              string
	}{
		{"bad escape", "/facts/1/feedback", "csrf=" + tok + "&helpful=%zz", "application/x-www-form-urlencoded", 400, "form body could not be read"},
		{"too large", "/add", "csrf=" + tok + "&content=" + strings.Repeat("a", 2<<10), "application/x-www-form-urlencoded", 413, "larger than 1024 bytes"},
		{"broken multipart", "/import", "--x\r\nnope", "multipart/form-data; boundary=x", 400, "form body could not be read"},
		{"no body type", "/facts/1/feedback", "csrf=" + tok + "&helpful=true", "text/plain", 403, "CSRF token is missing"},
		{"bad helpful", "/facts/1/feedback", "csrf=" + tok + "&helpful=yes", "application/x-www-form-urlencoded", 400, "helpful must be true or false"},
		{"id not a number", "/facts/x/link", "csrf=" + tok + "&to=1", "application/x-www-form-urlencoded", 400, "not a positive integer"},
		{"unknown fact", "/facts/99/edit", "csrf=" + tok + "&content=x", "application/x-www-form-urlencoded", 404, "not found"},
		{"link to itself", "/facts/1/link", "csrf=" + tok + "&to=1&kind=causal", "application/x-www-form-urlencoded", 400, ""},
		{"import on a server without imports", "/import", "csrf=" + tok, "application/x-www-form-urlencoded", 400, "started without imports"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := b.send("POST", tc.path, strings.NewReader(tc.body), tc.ctype)
			if r.status != tc.status || !bytes.Contains(r.body, []byte(tc.msg)) {
				t.Errorf("%d, want %d with %q: %.600s", r.status, tc.status, tc.msg, errorTextRE.Find(r.body))
			}
		})
	}
	f, err := b.mem.Store().FindFactByID(t.Context(), id)
	if err != nil || f.Content != "Alice drinks tea" || f.HelpfulCount != 0 || f.UnhelpfulCount != 0 {
		t.Errorf("the refused forms changed the fact: %+v %v", f, err)
	}
}
