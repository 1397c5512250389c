package main

import (
	"os"
	"strings"
	"testing"
)

// TestCLI_UnknownScheme: a --db with a scheme no backend registered
// (mysql://) is refused with the known schemes, exit 4, and creates no
// SQLite file of that name; it used to open one.
func TestCLI_UnknownScheme(t *testing.T) {
	t.Setenv("HOLOMEM_MODEL_DIR", t.TempDir())
	t.Setenv("HOLOMEM_NAMESPACE", "")
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{{"init"}, {"add", "we deploy on Fridays"}, {"stats"}, {"recall", "deploy"}} {
		c := &cli{t: t, db: "mysql://user:secret@host/db"}
		_, errs, code := c.run("", args...)
		if code != exitInvalid || !strings.Contains(errs, `unknown database scheme "mysql://"`) || !strings.Contains(errs, "postgres://") || !strings.Contains(errs, "sqlite:") {
			t.Errorf("holomem %v with --db mysql://: exit %d, stderr %q; want %d and the known schemes", args, code, errs, exitInvalid)
		}
		if strings.Contains(errs, "secret") {
			t.Errorf("holomem %v: stderr shows the password: %q", args, errs)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("created %v", entries)
	}
}
