package web_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// TestAPI_AnchorsCheckedAndHashed: an anchor posted over HTTP gets the
// CLI's checks (a regular file inside the anchor root: a symlink leading
// out, a FIFO and a directory are refused) and the server's hash, so a
// later change of the file marks the fact stale (an empty hash never did).
func TestAPI_AnchorsCheckedAndHashed(t *testing.T) {
	root := t.TempDir()
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{AnchorRoot: root})
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{}))
	t.Cleanup(ts.Close)
	e := &env{t: t, ts: ts, store: st}

	os.WriteFile(filepath.Join(root, "deploy.md"), []byte("deploy with ansible\n"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(root, "passwd"))
	syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600)
	os.Mkdir(filepath.Join(root, "dir"), 0o700)
	for _, bad := range []string{"passwd", "pipe", "dir", "missing.md", "../outside"} {
		r := e.do("POST", "/api/facts", map[string]any{"content": "anchored to " + bad, "anchor": map[string]string{"path": bad}})
		fails(t, r, 400, "invalid")
	}
	rem := ok[holomem.Remembered](t, e.do("POST", "/api/facts", map[string]any{
		"content": "the deploy runbook lives in deploy.md", "anchor": map[string]string{"path": "deploy.md", "hash": ""},
	}), 201)
	if rem.Fact == nil || rem.Fact.Anchor == nil || rem.Fact.Anchor.Hash == "" {
		t.Fatalf("anchor stored without the server's hash: %+v", rem.Fact)
	}
	os.WriteFile(filepath.Join(root, "deploy.md"), []byte("deploy with salt now\n"), 0o600)
	f, err := st.FindFactByID(t.Context(), rem.Fact.ID)
	if err != nil {
		t.Fatal(err)
	}
	if state := mem.AnchorState(t.Context(), f.Anchor); state != retrieve.StaleChanged {
		t.Errorf("changed anchored file: state %q, want %q", state, retrieve.StaleChanged)
	}
	// An update's anchor is checked the same way.
	r := e.do("PATCH", "/api/facts/"+strconv.FormatInt(rem.Fact.ID, 10), map[string]any{"anchor": map[string]string{"path": "pipe"}})
	fails(t, r, 400, "invalid")
}
