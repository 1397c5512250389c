package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
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

// browser is a cookie-keeping client of a UI over a real SQLite store; it
// does not follow redirects, so tests see them.
type browser struct {
	t   *testing.T
	ts  *httptest.Server
	c   *http.Client
	mem *retrieve.Memory
}

func newBrowser(t *testing.T, opts web.Options) *browser {
	t.Helper()
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	ts := httptest.NewServer(web.NewServer(mem, st, opts))
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{t: t, ts: ts, c: c, mem: mem}
}

func (b *browser) get(path string, hdr ...string) response {
	b.t.Helper()
	return b.send("GET", path, nil, "", hdr...)
}

func (b *browser) send(method, path string, body io.Reader, ctype string, hdr ...string) response {
	b.t.Helper()
	req, err := http.NewRequestWithContext(b.t.Context(), method, b.ts.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf loads a page and returns its form token.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	r := b.get(path)
	m := csrfRE.FindSubmatch(r.body)
	if m == nil {
		b.t.Fatalf("GET %s: no CSRF token in %d %.500s", path, r.status, r.body)
	}
	return string(m[1])
}

func (b *browser) post(path string, form url.Values, hdr ...string) response {
	b.t.Helper()
	return b.send("POST", path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", hdr...)
}

func (b *browser) remember(content string) int64 {
	b.t.Helper()
	rem, err := b.mem.Remember(b.t.Context(), &holomem.Fact{Content: content})
	if err != nil {
		b.t.Fatal(err)
	}
	return rem.Fact.ID
}

func TestUI_Headers(t *testing.T) {
	b := newBrowser(t, web.Options{})
	id := b.remember("nginx is deployed with Ansible")
	for _, path := range []string{"/", "/?q=nginx", fmt.Sprintf("/facts/%d", id), "/add", "/status", "/import", "/probe?entity=nginx", "/facts/999"} {
		r := b.get(path)
		if r.status != http.StatusOK && !(path == "/facts/999" && r.status == http.StatusNotFound) {
			t.Errorf("GET %s: %d %.300s", path, r.status, r.body)
		}
		h := r.header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
		if cc := h.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("GET %s: Cache-Control %q, want no-store", path, cc)
		}
		if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if bytes.Contains(r.body, []byte("<script>")) || bytes.Contains(r.body, []byte(" style=")) {
			t.Errorf("GET %s: inline script or style in the page", path)
		}
	}
	if r := b.get("/static/htmx.min.js"); r.status != http.StatusOK || len(r.body) < 10000 {
		t.Errorf("htmx: %d, %d bytes", r.status, len(r.body))
	}
	if r := b.get("/static/htmx.LICENSE"); r.status != http.StatusOK || !bytes.Contains(r.body, []byte("Zero-Clause BSD")) && !bytes.Contains(r.body, []byte("BSD")) {
		t.Errorf("htmx licence: %d %.100s", r.status, r.body)
	}
}

func TestUI_Escaping(t *testing.T) {
	b := newBrowser(t, web.Options{})
	evil := `<script>alert(1)</script> "><img src=x onerror=alert(2)> javascript:alert(3)`
	id := b.remember(evil)
	for _, path := range []string{fmt.Sprintf("/facts/%d", id), "/?q=script+alert+img", "/"} {
		r := b.get(path)
		for _, raw := range []string{"<script>alert", "<img src=x", `"><img`} {
			if bytes.Contains(r.body, []byte(raw)) {
				t.Errorf("GET %s: %q is in the page unescaped", path, raw)
			}
		}
		want := "&lt;script&gt;alert(1)&lt;/script&gt;"
		if strings.Contains(path, "?q=") {
			// The search page marks the matched words, escaped too.
			want = "&lt;<mark>script</mark>&gt;<mark>alert</mark>(1)&lt;/<mark>script</mark>&gt;"
		}
		if !bytes.Contains(r.body, []byte(want)) {
			t.Errorf("GET %s: the content is not shown escaped (want %s)", path, want)
		}
	}
}

func TestUI_CSRF(t *testing.T) {
	b := newBrowser(t, web.Options{})
	id := b.remember("Alice prefers dark mode")
	path := fmt.Sprintf("/facts/%d/feedback", id)
	tok := b.csrf(fmt.Sprintf("/facts/%d", id))
	tests := []struct {
		name   string
		form   url.Values
		hdr    []string
		status int
	}{
		{"no token", url.Values{"helpful": {"true"}}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"helpful": {"true"}, "csrf": {strings.Repeat("0", 64)}}, nil, http.StatusForbidden},
		{"cross-site with the token", url.Values{"helpful": {"true"}, "csrf": {tok}}, []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"token", url.Values{"helpful": {"true"}, "csrf": {tok}}, nil, http.StatusSeeOther},
		{"token in the header", url.Values{"helpful": {"false"}}, []string{"X-CSRF-Token", tok}, http.StatusSeeOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := b.post(path, tc.form, tc.hdr...); r.status != tc.status {
				t.Errorf("status %d, want %d: %.300s", r.status, tc.status, r.body)
			}
		})
	}
	f, err := b.mem.Store().FindFactByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if f.HelpfulCount != 1 || f.UnhelpfulCount != 1 {
		t.Errorf("votes %d/%d, want exactly the two accepted ones", f.HelpfulCount, f.UnhelpfulCount)
	}
	// Another browser (another cookie) cannot reuse the token.
	other := newBrowserOn(t, b.ts)
	other.get("/")
	if r := other.post(path, url.Values{"helpful": {"true"}, "csrf": {tok}}); r.status != http.StatusForbidden {
		t.Errorf("token of another browser: %d", r.status)
	}
}

func newBrowserOn(t *testing.T, ts *httptest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, ts: ts, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func TestUI_Token(t *testing.T) {
	b := newBrowser(t, web.Options{Token: "s3cret"})
	if r := b.get("/"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
		t.Fatalf("GET / without login: %d %s", r.status, r.header.Get("Location"))
	}
	if r := b.get("/status", "Authorization", "Bearer s3cret"); r.status != http.StatusOK {
		t.Errorf("GET /status with the bearer token: %d", r.status)
	}
	tok := b.csrf("/login?next=/status")
	if r := b.post("/login", url.Values{"csrf": {tok}, "token": {"wrong"}}); r.status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", r.status)
	}
	r := b.post("/login", url.Values{"csrf": {tok}, "token": {"s3cret"}, "next": {"//evil.example/x"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
		t.Errorf("login: %d to %q, want 303 to / (an off-site next is dropped)", r.status, r.header.Get("Location"))
	}
	if r := b.get("/status"); r.status != http.StatusOK {
		t.Errorf("GET /status after login: %d", r.status)
	}
	for _, c := range b.c.Jar.Cookies(mustURL(t, b.ts.URL)) {
		if c.Value == "s3cret" {
			t.Error("the token itself is stored in a cookie")
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestUI_EditSupersedeLinkForget(t *testing.T) {
	b := newBrowser(t, web.Options{})
	a := b.remember("The API listens on port 8080")
	n := b.remember("The API listens on port 9090 since the migration")
	tok := b.csrf("/add")
	steps := []struct {
		path   string
		form   url.Values
		status int
		loc    string
	}{
		{fmt.Sprintf("/facts/%d/edit", a), url.Values{"content": {"The API listened on port 8080"}, "category": {"project"}, "tags": {"api, Ports"}}, 303, fmt.Sprintf("/facts/%d?done=saved", a)},
		{fmt.Sprintf("/facts/%d/edit", a), url.Values{"content": {""}}, 400, ""},
		{fmt.Sprintf("/facts/%d/link", n), url.Values{"to": {fmt.Sprint(a)}, "kind": {"temporal"}}, 303, fmt.Sprintf("/facts/%d?done=linked", n)},
		{fmt.Sprintf("/facts/%d/link", n), url.Values{"to": {fmt.Sprint(a)}, "kind": {"Not A Kind"}}, 400, ""},
		{fmt.Sprintf("/facts/%d/link", n), url.Values{"to": {"abc"}, "kind": {"causal"}}, 400, ""},
		{fmt.Sprintf("/facts/%d/supersede", n), url.Values{"old": {fmt.Sprintf("#%d", a)}}, 303, fmt.Sprintf("/facts/%d?done=superseded", n)},
		{fmt.Sprintf("/facts/%d/forget", n), url.Values{}, 303, fmt.Sprintf("/facts/%d", n)},
		{fmt.Sprintf("/facts/%d/forget", n), url.Values{"confirm": {"yes"}}, 303, "/?forgot=" + fmt.Sprint(n)},
		{fmt.Sprintf("/facts/%d/forget", n), url.Values{"confirm": {"yes"}}, 404, ""},
	}
	for i, s := range steps {
		if i == 6 {
			// Before the forget: forgetting the new fact drops its edges,
			// and with them the supersession.
			if f, err := b.mem.Store().FindFactByID(t.Context(), a); err != nil || f.SupersededBy != n {
				t.Errorf("after supersede: %+v, %v", f, err)
			}
		}
		s.form.Set("csrf", tok)
		r := b.post(s.path, s.form)
		if r.status != s.status || (s.loc != "" && r.header.Get("Location") != s.loc) {
			t.Errorf("step %d POST %s: %d to %q, want %d to %q: %.300s", i, s.path, r.status, r.header.Get("Location"), s.status, s.loc, r.body)
		}
	}
	f, err := b.mem.Store().FindFactByID(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if f.Content != "The API listened on port 8080" || f.Category != "project" || strings.Join(f.Tags, ",") != "api,ports" {
		t.Errorf("fact after the forms: %+v", f)
	}
}

func TestUI_AddChecksBeforeSaving(t *testing.T) {
	b := newBrowser(t, web.Options{})
	b.remember("We deploy nginx with Ansible; the playbook is deploy/nginx.yml")
	tok := b.csrf("/add")
	form := url.Values{"csrf": {tok}, "content": {"We deploy nginx with Ansible; the playbook is deploy/nginx.yaml"}, "action": {"check"}}
	r := b.post("/add", form)
	if r.status != 200 || !bytes.Contains(r.body, []byte("Near-duplicates")) {
		t.Fatalf("check: %d %.1000s", r.status, r.body)
	}
	if _, total, _ := b.mem.Store().FindFacts(t.Context(), holomem.FactFilter{}); total != 1 {
		t.Errorf("the check stored something: %d facts", total)
	}
	form.Set("action", "save")
	if r := b.post("/add", form); r.status != 200 || !bytes.Contains(r.body, []byte("Saved as")) {
		t.Errorf("save with findings: %d %.500s", r.status, r.body)
	}
	form.Set("content", "Something entirely different about ducks")
	if r := b.post("/add", form); r.status != 303 || !strings.Contains(r.header.Get("Location"), "done=created") {
		t.Errorf("save without findings: %d %s", r.status, r.header.Get("Location"))
	}
	form.Set("content", "   ")
	if r := b.post("/add", form); r.status != 400 {
		t.Errorf("empty content: %d", r.status)
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestUI_ImportUploads(t *testing.T) {
	got := make(chan web.ImportRequest, 10)
	b := newBrowser(t, web.Options{Import: func(_ context.Context, req web.ImportRequest) (string, error) {
		req.Progress(3)
		got <- req
		return "3 records", nil
	}})
	tests := []struct {
		name, file string
		body       []byte
		status     int
		kind       string
	}{
		{"jsonl", "export.jsonl", []byte(`{"type":"header"}` + "\n"), 303, "jsonl"},
		{"github", "issues.json", []byte(`[]`), 303, "github"},
		{"markdown zip", "notes.zip", zipOf(t, map[string]string{"a/one.md": "# One\nbody", "skip.txt": "x"}), 303, "markdown"},
		{"zip escaping its folder", "evil.zip", zipOf(t, map[string]string{"../../evil.md": "# x"}), 400, ""},
		{"zip without notes", "empty.zip", zipOf(t, map[string]string{"a.txt": "x"}), 400, ""},
		{"not a zip", "bad.zip", []byte("nope"), 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok := b.csrf("/import")
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			mw.WriteField("csrf", tok)
			fw, _ := mw.CreateFormFile("file", tc.file)
			fw.Write(tc.body)
			mw.Close()
			r := b.send("POST", "/import", &body, mw.FormDataContentType())
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %.500s", r.status, tc.status, r.body)
			}
			if tc.status != 303 {
				return
			}
			last := <-got
			if last.Kind != tc.kind || last.Name != tc.file {
				t.Errorf("import request %+v", last)
			}
			job := b.get(r.header.Get("Location"))
			for job.status == 200 && bytes.Contains(job.body, []byte("Running")) {
				job = b.get(r.header.Get("Location"))
			}
			if !bytes.Contains(job.body, []byte("Done: 3 records")) {
				t.Errorf("job page: %d %.800s", job.status, job.body)
			}
		})
	}
}

// TestUI_PageWeight checks the budget: a search page with 20 hits
// weighs at most 60 KB without htmx, for ordinary text and for hits made of
// characters that each escape to 4-5 bytes (the heaviest a hit can be: its
// text is cut at 280 characters).
func TestUI_PageWeight(t *testing.T) {
	words := strings.Fields("deploy nginx ansible playbook server config database backup schedule staging release")
	tests := []struct {
		name    string
		content func(i int, r *rand.Rand) string
	}{
		{"words", func(i int, r *rand.Rand) string {
			var sb strings.Builder
			fmt.Fprintf(&sb, "fact %d:", i)
			for sb.Len() < 400 {
				sb.WriteString(" " + words[r.IntN(len(words))])
			}
			return sb.String()
		}},
		{"every character escaped", func(i int, _ *rand.Rand) string {
			return fmt.Sprintf("deploy nginx ansible playbook %d ", i) + strings.Repeat(`<"&'>`, 80)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(t, web.Options{})
			r := rand.New(rand.NewPCG(1, 2))
			for i := range 40 {
				b.remember(tc.content(i, r))
			}
			page := b.get("/?q=deploy+nginx+ansible+playbook&limit=20&min_trust=0")
			if n := bytes.Count(page.body, []byte(`class="hit"`)); n != 20 {
				t.Fatalf("%d hits on the page, want 20", n)
			}
			css := b.get("/static/style.css")
			total := len(page.body) + len(css.body)
			t.Logf("search page with 20 hits (%s): %d bytes HTML + %d bytes CSS = %d bytes", tc.name, len(page.body), len(css.body), total)
			if total > 60<<10 {
				t.Errorf("search page weighs %d bytes without htmx, budget 61440", total)
			}
		})
	}
}

func TestUI_Status(t *testing.T) {
	b := newBrowser(t, web.Options{})
	b.remember("nginx is deployed with Ansible")
	r := b.get("/status")
	for _, want := range []string{"channels live", "fts", "facts per namespace", "default"} {
		if !bytes.Contains(r.body, []byte(want)) {
			t.Errorf("status page without Options.Status lacks %q", want)
		}
	}
	b2 := newBrowser(t, web.Options{Status: func(context.Context) (*web.Status, error) {
		return &web.Status{Warnings: []string{"<b>stale</b> anchor"}, Sections: []web.StatusSection{{Title: "doctor", Rows: []web.StatusRow{{Name: "model", Value: "none", Warn: true}}}}}, nil
	}})
	r = b2.get("/status")
	if !bytes.Contains(r.body, []byte("&lt;b&gt;stale&lt;/b&gt; anchor")) || !bytes.Contains(r.body, []byte(`<tr class="warn"><th>model</th>`)) {
		t.Errorf("status page with Options.Status: %.2000s", r.body)
	}
}

// TestUI_RefusedHtmxFormsShowTheError: htmx swaps only 2xx answers, so a
// refused form sent by htmx (the pages boost every form) gets its error as
// a fragment for the page's #ui-error region, with the headers that tell
// htmx where to put it and not to change the address; the same form without
// JavaScript gets the error page with its status.
func TestUI_RefusedHtmxFormsShowTheError(t *testing.T) {
	b := newBrowser(t, web.Options{})
	a := b.remember("The API listens on port 8080")
	tok := b.csrf(fmt.Sprintf("/facts/%d", a))
	if !strings.Contains(string(b.get(fmt.Sprintf("/facts/%d", a)).body), `id="ui-error"`) {
		t.Fatal("the fact page has no #ui-error region")
	}
	cases := []struct {
		name, path string
		form       url.Values
		status     int
		want       string
	}{
		{"link to a missing fact", fmt.Sprintf("/facts/%d/link", a), url.Values{"to": {"999"}, "kind": {"causal"}}, 404, "not found"},
		{"supersede by itself", fmt.Sprintf("/facts/%d/supersede", a), url.Values{"old": {fmt.Sprint(a)}}, 400, "cannot replace itself"},
		{"empty edit", fmt.Sprintf("/facts/%d/edit", a), url.Values{"content": {"  "}, "category": {"general"}}, 400, "empty"},
		{"stale CSRF token", fmt.Sprintf("/facts/%d/edit", a), url.Values{"content": {"x"}, "csrf": {"00"}}, 403, "CSRF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.form.Has("csrf") {
				tc.form.Set("csrf", tok)
			}
			r := b.post(tc.path, tc.form, "HX-Request", "true", "HX-Boosted", "true")
			body := string(r.body)
			if r.status != http.StatusOK || r.header.Get("HX-Retarget") != "#ui-error" || r.header.Get("HX-Reswap") != "innerHTML" ||
				r.header.Get("HX-Push-Url") != "false" || r.header.Get("X-Holomem-Status") != fmt.Sprint(tc.status) {
				t.Errorf("htmx: %d, headers %v; want 200 with HX-Retarget #ui-error, HX-Reswap innerHTML, HX-Push-Url false, X-Holomem-Status %d",
					r.status, r.header, tc.status)
			}
			if !strings.Contains(body, tc.want) || strings.Contains(body, "<html") || strings.Count(body, "supersede") > 1 {
				t.Errorf("htmx body %q: want a fragment saying %q", body, tc.want)
			}
			r = b.post(tc.path, tc.form)
			if r.status != tc.status || !strings.Contains(string(r.body), "<html") || !strings.Contains(string(r.body), tc.want) {
				t.Errorf("without htmx: %d %.300s; want the %d error page saying %q", r.status, r.body, tc.status, tc.want)
			}
		})
	}
	if f, err := b.mem.Store().FindFactByID(t.Context(), a); err != nil || f.Content != "The API listens on port 8080" {
		t.Errorf("a refused form changed the fact: %+v, %v", f, err)
	}
}

// TestUI_Favicon: browsers ask for /favicon.ico by themselves; it is a
// small public icon, not a 404, also when a token guards the pages.
func TestUI_Favicon(t *testing.T) {
	for _, token := range []string{"", "secret-token-for-the-test"} {
		b := newBrowser(t, web.Options{Token: token})
		for _, path := range []string{"/favicon.ico", "/static/favicon.svg"} {
			r := b.get(path)
			if r.status != http.StatusOK || r.header.Get("Content-Type") != "image/svg+xml" || !bytes.Contains(r.body, []byte("<svg")) || len(r.body) > 1024 {
				t.Errorf("token %v: GET %s: %d %q, %d bytes; want 200 image/svg+xml under 1 KiB", token != "", path, r.status, r.header.Get("Content-Type"), len(r.body))
			}
		}
	}
}
