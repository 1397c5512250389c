package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/web"
)

// uiClient is a cookie-keeping HTTP client of the web UI that does not
// follow redirects.
type uiClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newUIClient(t *testing.T, base string) *uiClient {
	jar, _ := cookiejar.New(nil)
	return &uiClient{t: t, base: base, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (u *uiClient) do(req *http.Request) (int, http.Header, string) {
	u.t.Helper()
	resp, err := u.c.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		u.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func (u *uiClient) get(path string) (int, string) {
	u.t.Helper()
	req, _ := http.NewRequestWithContext(u.t.Context(), "GET", u.base+path, nil)
	code, _, body := u.do(req)
	return code, body
}

var uiCSRFRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// upload posts one file through the import form as a browser does.
func (u *uiClient) upload(name string, data []byte, fields ...string) (int, string, string) {
	u.t.Helper()
	_, page := u.get("/import")
	m := uiCSRFRE.FindStringSubmatch(page)
	if m == nil {
		u.t.Fatalf("import page without a CSRF token: %.500s", page)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", m[1])
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequestWithContext(u.t.Context(), "POST", u.base+"/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	code, h, page := u.do(req)
	return code, h.Get("Location"), page
}

// waitJob polls a job page until the import has finished.
func (u *uiClient) waitJob(path string) string {
	u.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		code, page := u.get(path)
		if code != http.StatusOK {
			u.t.Fatalf("GET %s: %d %.500s", path, code, page)
		}
		if strings.Contains(page, `id="job" class="finished"`) {
			return page
		}
	}
	u.t.Fatalf("import %s did not finish", path)
	return ""
}

var tagRE = regexp.MustCompile(`<[^>]+>`)

// pageText is a page's text without tags or repeated blanks, entities kept.
func pageText(page string) string {
	return strings.Join(strings.Fields(tagRE.ReplaceAllString(page, " ")), " ")
}

// ghExport is a `gh issue list`/`gh pr list` style array: issues 1..issues
// of acme/app, and PRs (numbered after them) each fixing issue k.
func ghExport(t *testing.T, issues, prs int) []byte {
	var items []map[string]any
	for i := 1; i <= issues; i++ {
		items = append(items, map[string]any{"number": i, "title": fmt.Sprintf("crash %d in the upload parser", i), "body": "Steps to reproduce ...",
			"state": "OPEN", "url": fmt.Sprintf("https://github.com/acme/app/issues/%d", i), "createdAt": "2026-01-02T03:04:05Z",
			"labels": []map[string]string{{"name": "bug"}}})
	}
	for k := 1; k <= prs; k++ {
		n := issues + k
		items = append(items, map[string]any{"number": n, "title": fmt.Sprintf("parser: guard the upload of kind %d", k), "body": fmt.Sprintf("Fixes #%d", k),
			"state": "MERGED", "headRefName": fmt.Sprintf("fix/%d-crash", k), "url": fmt.Sprintf("https://github.com/acme/app/pull/%d", n),
			"createdAt": "2026-01-03T03:04:05Z", "mergedAt": "2026-01-04T03:04:05Z"})
	}
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zipNotes(t *testing.T, files map[string]string) []byte {
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

// TestWebUI_Imports uploads gh JSON, a markdown zip and malformed files
// through the import page of the server `holomem serve` builds (the real
// importer over a real SQLite file), and checks the progress page, the
// summaries, the facts and edges stored, and that a malformed file says
// why and changes nothing.
func TestWebUI_Imports(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "We deploy nginx with Ansible", "--category", "project")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the uploads' temporary copies, checked at the end

	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	a.dbPath, a.global, a.noModel = c.db, true, true
	defer a.close()
	m, err := a.memory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	opts := web.Options{Namespace: a.ns(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a.webUI(&opts, m)
	// Hold the first github import after its first batch so the test sees
	// the progress page of a running import.
	reached, release := make(chan int, 1), make(chan struct{})
	var gate sync.Once
	realImport := opts.Import
	opts.Import = func(ctx context.Context, req web.ImportRequest) (string, error) {
		hold := false
		if req.Kind == "github" {
			gate.Do(func() { hold = true })
		}
		if hold {
			report, first := req.Progress, true
			req.Progress = func(done int) {
				report(done)
				if first {
					first = false
					reached <- done
					<-release
				}
			}
		}
		return realImport(ctx, req)
	}
	ts := httptest.NewServer(web.NewServer(m, m.Store(), opts))
	defer ts.Close()
	u := newUIClient(t, ts.URL)

	total := func() int {
		t.Helper()
		_, n, err := m.Store().FindFacts(t.Context(), holomem.FactFilter{IncludeSuperseded: true, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	causal := func() int {
		t.Helper()
		es, err := m.Store().FindEdges(t.Context(), holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeCausal}, Limit: holomem.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}

	t.Run("github JSON with progress", func(t *testing.T) {
		const issues, prs = 520, 20 // two batches of the importer: progress shows the first
		code, job, page := u.upload("issues.json", ghExport(t, issues, prs))
		if code != http.StatusSeeOther || !strings.HasPrefix(job, "/import/") {
			t.Fatalf("upload: %d to %q: %.500s", code, job, page)
		}
		done := <-reached
		_, running := u.get(job)
		if !strings.Contains(running, fmt.Sprintf(`<span id="job-count">%d</span> records stored`, done)) || done != 500 ||
			!strings.Contains(running, `<meta http-equiv="refresh" content="1">`) || !strings.Contains(running, "<progress") {
			t.Errorf("progress page after the first batch (%d records): %.1500s", done, running)
		}
		if _, list := u.get("/import"); !strings.Contains(list, "running, 500 records") {
			t.Errorf("import page does not list the running import: %s", pageText(list))
		}
		close(release)
		text := pageText(u.waitJob(job))
		want := fmt.Sprintf("Done: imported github issues.json: %d records, %d new facts, 0 already there, %d edges", issues+prs, issues+prs, prs)
		if !strings.Contains(text, want) {
			t.Errorf("job page = %q, want %q", text, want)
		}
		if n := total(); n != 1+issues+prs {
			t.Errorf("%d facts after the import, want %d", n, 1+issues+prs)
		}
		if n := causal(); n != prs {
			t.Errorf("%d causal edges, want one per PR (%d)", n, prs)
		}
		_, fact := u.get("/facts/3") // issue #2 (fact #1 is the nginx one)
		if !strings.Contains(pageText(fact), "led to (step 1) #") {
			t.Errorf("issue page without the PR that fixed it: %s", pageText(fact))
		}
		// Again: idempotent, nothing doubled.
		_, job, _ = u.upload("issues.json", ghExport(t, issues, prs))
		if text := pageText(u.waitJob(job)); !strings.Contains(text, fmt.Sprintf("0 new facts, %d already there, 0 edges", issues+prs)) {
			t.Errorf("second import: %q", text)
		}
		if n := total(); n != 1+issues+prs {
			t.Errorf("%d facts after importing the file again, want %d", n, 1+issues+prs)
		}
	})

	t.Run("markdown zip into a namespace", func(t *testing.T) {
		zipped := zipNotes(t, map[string]string{
			"notes/deploy.md":    "---\ntags: [ops]\n---\n# Deploy\nThe staging database is reset every Sunday night.\n",
			"notes/sub/keys.md":  "# Keys\nRotate the signing keys every 90 days.\n",
			"notes/readme.txt":   "not a note",
			"notes/.obsidian.md": "# hidden?\n",
		})
		code, job, page := u.upload("notes.zip", zipped, "namespace", "team-notes")
		if code != http.StatusSeeOther {
			t.Fatalf("upload: %d %.500s", code, page)
		}
		text := pageText(u.waitJob(job))
		if !strings.Contains(text, "Done: imported markdown notes.zip:") || !strings.Contains(text, "into namespace team-notes") {
			t.Fatalf("job page = %q", text)
		}
		ns := "team-notes"
		fs, n, err := m.Store().FindFacts(t.Context(), holomem.FactFilter{Namespace: &ns})
		if err != nil || n < 2 {
			t.Fatalf("%d facts in %s: %v", n, ns, err)
		}
		var contents []string
		for _, f := range fs {
			contents = append(contents, f.Content)
		}
		if all := strings.Join(contents, "\n"); !strings.Contains(all, "Sunday night") || !strings.Contains(all, "90 days") || strings.Contains(all, "not a note") {
			t.Errorf("facts of the zip: %q", all)
		}
		if _, hits := u.get("/?namespace=team-notes&q=signing+keys"); !strings.Contains(pageText(hits), "Rotate the signing keys") {
			t.Errorf("search in the namespace does not find the note: %s", pageText(hits))
		}
	})

	malformed := []struct {
		name, file string
		data       []byte
		status     int
		want       []string // in the page's text
		added      int      // facts the file adds (the readable part)
	}{
		{"not JSON", "issues.json", []byte("<html><body>Sign in to GitHub</body></html>"), http.StatusSeeOther,
			[]string{"Nothing imported", "Nothing imported: no record of issues.json could be read as GitHub JSON", "issues.json:1: not a JSON object or array", "The memory is unchanged"}, 0},
		{"JSONL cut mid-record", "export.jsonl", []byte(`{"type":"fact","content":"half`), http.StatusSeeOther,
			[]string{"Nothing imported", "could be read as JSONL (the output of holomem export)", "export.jsonl:1: not a JSON object"}, 0},
		{"github with broken elements", "prs.json", []byte(`[{"number":7001,"title":"kept","url":"https://github.com/acme/app/issues/7001"}, 42, {"number":"x"},
{"number":7002,"title":"cut`), http.StatusSeeOther,
			[]string{"Done: imported github prs.json: 1 records, 1 new facts", "skipped 3", "array element is not a JSON object", "truncated JSON"}, 1},
		{"corrupt zip", "notes.zip", []byte("PK\x03\x04 this is not a zip"), http.StatusBadRequest,
			[]string{"not a zip file"}, 0},
		{"zip without notes", "photos.zip", zipNotes(t, map[string]string{"a.jpg": "\xff\xd8"}), http.StatusBadRequest,
			[]string{"the zip holds no .md files"}, 0},
	}
	for _, tc := range malformed {
		t.Run("malformed: "+tc.name, func(t *testing.T) {
			before := total()
			code, job, page := u.upload(tc.file, tc.data)
			if code != tc.status {
				t.Fatalf("upload: %d, want %d: %s", code, tc.status, pageText(page))
			}
			if code == http.StatusSeeOther {
				page = u.waitJob(job)
			}
			text := pageText(page)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("page lacks %q: %s", w, text)
				}
			}
			if strings.Contains(text, tmp) || strings.Contains(text, "holomem-import-") {
				t.Errorf("page shows the upload's temporary path: %s", text)
			}
			if n := total(); n != before+tc.added {
				t.Errorf("%d facts after the upload, want %d", n, before+tc.added)
			}
		})
	}
	_, nginx := u.get("/facts/1")
	if !strings.Contains(nginx, "We deploy nginx with Ansible") {
		t.Errorf("the fact stored before the imports changed: %s", pageText(nginx))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("uploads left behind in the temporary directory: %v", left)
	}
}
