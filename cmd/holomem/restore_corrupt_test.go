package main

import (
	"database/sql"
	"os"
	"strings"
	"testing"
)

// TestCLI_RestoreOverCorruptStoreHintsForce: restoring a good backup over
// a damaged database says how to go on (--force), and --force does it.
func TestCLI_RestoreOverCorruptStoreHintsForce(t *testing.T) {
	c := newCLI(t)
	var facts []string
	for i := range 40 {
		facts = append(facts, strings.Repeat("a long fact about the deploy pipeline ", 10)+strings.Repeat("z", i))
	}
	good := backupWith(t, c, facts...)
	c.ok("add", "one more after the backup")
	// Damage the facts table's leaf pages only: the file still opens,
	// reading the facts fails.
	db, err := sql.Open("sqlite", "file:"+c.db)
	if err != nil {
		t.Fatal(err)
	}
	db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	var pages []int
	rows, err := db.Query("SELECT pageno FROM dbstat WHERE name = 'facts' AND pagetype = 'leaf'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p int
		rows.Scan(&p)
		pages = append(pages, p)
	}
	rows.Close()
	db.Close()
	raw, err := os.ReadFile(c.db)
	if err != nil {
		t.Fatal(err)
	}
	for _, pg := range pages {
		copy(raw[(pg-1)*4096+8:], []byte("\xde\xad\xbe\xef\xde\xad\xbe\xef"))
	}
	if err := os.WriteFile(c.db, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code := c.run("", "restore", good)
	if code == 0 || !strings.Contains(errs, "--force") {
		t.Errorf("restore over a damaged database: exit %d, no --force hint:\n%s", code, errs)
	}
	c.ok("restore", "--force", good)
	if out := c.ok("verify"); !strings.Contains(out, "ok") {
		t.Errorf("after restore --force: %s", out)
	}
}
