package main

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/web"
)

// TestWebUI_ZipSymlinkSkipped: a symbolic link in an uploaded zip of notes
// is left out with a note on the job page; it became a note whose text
// was the link's target.
func TestWebUI_ZipSymlinkSkipped(t *testing.T) {
	c := newCLI(t)
	c.ok("init") // reads do not create a database
	t.Setenv("TMPDIR", t.TempDir())
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	a.dbPath, a.global, a.noModel = c.db, true, true
	defer a.close()
	m, err := a.memory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	opts := web.Options{Namespace: a.ns(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a.webUI(&opts, m)
	ts := httptest.NewServer(web.NewServer(m, m.Store(), opts))
	defer ts.Close()
	u := newUIClient(t, ts.URL)

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("notes/deploy.md")
	io.WriteString(w, "# Deploy\n\nWe deploy nginx with Ansible.\n")
	h := &zip.FileHeader{Name: "notes/secrets.md", Method: zip.Store}
	h.SetMode(fs.ModeSymlink | 0o777)
	w, _ = zw.CreateHeader(h)
	io.WriteString(w, "/etc/passwd")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	code, job, page := u.upload("notes.zip", buf.Bytes())
	if code != http.StatusSeeOther {
		t.Fatalf("upload: %d: %s", code, pageText(page))
	}
	text := pageText(u.waitJob(job))
	if !strings.Contains(text, "skipped zip entry notes/secrets.md: a symbolic link") {
		t.Errorf("job page does not report the link: %s", text)
	}
	facts, _, err := m.Store().FindFacts(t.Context(), holomem.FactFilter{IncludeSuperseded: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 {
		t.Errorf("%d facts, want the one note", len(facts))
	}
	for _, f := range facts {
		if strings.Contains(f.Content, "/etc/passwd") {
			t.Errorf("the link became a fact: %q", f.Content)
		}
	}
}
