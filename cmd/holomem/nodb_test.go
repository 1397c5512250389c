package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_ReadsDoNotCreateTheDatabase: a read with a mistyped --db said
// "no facts found" and left an empty database behind. Reads now say there
// is no database (exit 3) and create nothing; init, add and import still
// create it.
func TestCLI_ReadsDoNotCreateTheDatabase(t *testing.T) {
	t.Setenv("HOLOMEM_MODEL_DIR", t.TempDir())
	t.Setenv("HOLOMEM_NAMESPACE", "")
	dir := t.TempDir()
	missing := filepath.Join(dir, "typo.db")
	reads := [][]string{
		{"recall", "deploy"}, {"search", "deploy"}, {"get", "1"}, {"list"}, {"stats"}, {"export"},
		{"probe", "nginx"}, {"related", "nginx"}, {"edges", "1"}, {"chain", "1"}, {"doctor"},
		{"update", "1", "--category", "x"}, {"forget", "1"}, {"feedback", "1", "--helpful"},
		{"supersede", "1", "2"}, {"link", "1", "2"}, {"unlink", "1", "2"},
		{"copy", "--from", missing, "--to", filepath.Join(dir, "copy.db")},
	}
	for _, args := range reads {
		c := &cli{t: t, db: missing}
		_, errs, code := c.run("", args...)
		if code != exitNotFound || !strings.Contains(errs, "no database at "+missing) || !strings.Contains(errs, "holomem init") {
			t.Errorf("holomem %v on a missing --db: exit %d, stderr %q; want %d and \"no database at %s; run `holomem init`\"", args, code, errs, exitNotFound, missing)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("holomem %v created %v", args, entries)
		}
	}
	// The hook stays silent and exits 0, and creates nothing either.
	c := &cli{t: t, db: missing}
	if out, _, code := c.run("which database?", "hook", "recall"); code != 0 || out != "" {
		t.Errorf("hook recall on a missing --db: exit %d, %q", code, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("hook recall created %v", entries)
	}
	for i, args := range [][]string{{"init"}, {"add", "we deploy on Fridays"}, {"import", filepath.Join("testdata", "none.jsonl")}} {
		db := filepath.Join(dir, "new", string(rune('a'+i))+".db")
		c := &cli{t: t, db: db}
		c.run("", args...) // import of a missing file fails, after the database exists
		if _, err := os.Stat(db); err != nil {
			t.Errorf("holomem %v did not create the database: %v", args, err)
		}
	}
}
