package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backup"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/sqlite"
)

// fileSums is the SHA-256 of each of path's files (the database, its
// journal, log and index) that exist, to show verify changed none.
func fileSums(t *testing.T, path string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	for _, sfx := range []string{"", "-journal", "-wal", "-shm"} {
		b, err := os.ReadFile(path + sfx)
		if err == nil {
			m[sfx] = sha256.Sum256(b)
		}
	}
	return m
}

func sameSums(t *testing.T, what string, before, after map[string][32]byte) {
	t.Helper()
	for sfx, s := range before {
		if a, ok := after[sfx]; !ok || a != s {
			t.Errorf("%s: verify changed or removed the file%s", what, sfx)
		}
	}
	for sfx := range after {
		if _, ok := before[sfx]; !ok && sfx != "-shm" {
			t.Errorf("%s: verify created the file%s", what, sfx)
		}
	}
}

// backupWith writes a backup of a database holding facts and returns its path.
func backupWith(t *testing.T, c *cli, facts ...string) string {
	t.Helper()
	for _, f := range facts {
		c.ok("add", f)
	}
	var b backup.Report
	c.json(&b, "backup", t.TempDir())
	return b.Path
}

// TestCLI_VerifyReportsHotJournalUntouched: a backup whose writer was
// killed mid-transaction leaves the file and a hot journal; verify must
// report the journal and leave both as they are (it rolled the journal
// back and printed ok).
func TestCLI_VerifyReportsHotJournalUntouched(t *testing.T) {
	c := newCLI(t)
	var facts []string
	for i := range 60 {
		facts = append(facts, strings.Repeat("padding words for a longer fact ", 20)+string(rune('a'+i%26))+" number "+strings.Repeat("x", i))
	}
	src := backupWith(t, c, facts...)
	// Freeze a writer mid-transaction: rollback-journal mode, a cache too
	// small to hold the change so it spills into the file, and a copy of
	// the file and its journal taken before the commit.
	db, err := sql.Open("sqlite", "file:"+src+"?_pragma=journal_mode(DELETE)&_pragma=cache_size(2)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE facts SET hrr = zeroblob(length(hrr)), source = 'overwritten'"); err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(t.TempDir(), "b.db")
	for _, sfx := range []string{"", "-journal"} {
		raw, err := os.ReadFile(src + sfx)
		if err != nil {
			t.Fatalf("no %s%s mid-transaction: %v", src, sfx, err)
		}
		if err := os.WriteFile(killed+sfx, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	conn.ExecContext(ctx, "ROLLBACK")
	if hot, _ := backup.HotJournal(killed); !hot {
		t.Fatal("the test did not produce a hot journal")
	}
	before := fileSums(t, killed)
	out, _, code := c.run("", "verify", killed)
	if code == 0 || !strings.Contains(out, "hot journal") {
		t.Errorf("verify of a file with a hot journal: exit %d\n%s", code, out)
	}
	sameSums(t, "hot journal", before, fileSums(t, killed))
}

// TestCLI_VerifyEmptyFileUntouched: an empty file is reported, not turned
// into an empty database.
func TestCLI_VerifyEmptyFileUntouched(t *testing.T) {
	c := newCLI(t)
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := c.run("", "verify", empty)
	if code == 0 || !strings.Contains(out, "empty") {
		t.Errorf("verify of an empty file: exit %d\n%s", code, out)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("verify wrote to the empty file: %v %v", fi.Size(), err)
	}
	for _, sfx := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(empty + sfx); err == nil {
			t.Errorf("verify created %s", sfx)
		}
	}
}

// TestCLI_VerifyOldSchemaUntouched: an older backup is checked as it is,
// with a note that restore upgrades it; it is neither migrated nor
// switched to WAL.
func TestCLI_VerifyOldSchemaUntouched(t *testing.T) {
	c := newCLI(t)
	raw, err := os.ReadFile("../../sqlite/testdata/schema/v3.db")
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "v3.db")
	if err := os.WriteFile(old, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	// The committed fixture's hashes are placeholders; a real file's are
	// the content's.
	db, err := sql.Open("sqlite", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"Alice deploys nginx with Ansible", "Bob prefers vim"} {
		if _, err := db.Exec("UPDATE facts SET content_hash = ? WHERE content = ?", rowcodec.ContentHash(c), c); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before := fileSums(t, old)
	var rep backup.Verification
	c.json(&rep, "verify", old)
	if rep.Schema != 3 || !rep.OK || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "schema 3") || !strings.Contains(rep.Notes[0], "restore") {
		t.Errorf("verify of a schema-3 file: %+v", rep)
	}
	sameSums(t, "schema 3", before, fileSums(t, old))
}

// TestCLI_VerifyReportsDeletedWAL: a store killed with commits still in
// its write-ahead log, and the log then deleted (its index kept): verify
// reports the lost commits, and so does the next open (doctor).
func TestCLI_VerifyReportsDeletedWAL(t *testing.T) {
	ctx := context.Background()
	live := filepath.Join(t.TempDir(), "w.db")
	s, err := sqlite.Open(ctx, live)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 20 {
		if _, err := s.CreateFact(ctx, &holomem.Fact{Namespace: "default", Content: "acknowledged write " + strings.Repeat("y", i), Category: "note", Trust: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	// What kill -9 and then rm w.db-wal leave: the file and the index.
	dead := filepath.Join(t.TempDir(), "w.db")
	for _, sfx := range []string{"", "-shm"} {
		raw, err := os.ReadFile(live + sfx)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dead+sfx, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, wal := range []string{"missing", "empty"} {
		if wal == "empty" {
			os.WriteFile(dead+"-wal", nil, 0o600)
		}
		c := newCLI(t)
		before := fileSums(t, dead)
		out, _, code := c.run("", "verify", dead)
		if code == 0 || !strings.Contains(out, "committed frames not yet copied") {
			t.Errorf("verify with the log %s: exit %d\n%s", wal, code, out)
		}
		sameSums(t, "deleted log", before, fileSums(t, dead))
	}
	// A log cut short (its index says more frames were committed): verify
	// reports it and leaves the index, the evidence, as it was.
	cut := filepath.Join(t.TempDir(), "w.db")
	for _, sfx := range []string{"", "-shm", "-wal"} {
		raw, err := os.ReadFile(live + sfx)
		if err != nil {
			t.Fatal(err)
		}
		if sfx == "-wal" {
			pg := os.Getpagesize()
			raw = raw[:len(raw)-len(raw)%pg-pg]
		}
		if err := os.WriteFile(cut+sfx, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := fileSums(t, cut)
	if out, _, code := newCLI(t).run("", "verify", cut); code == 0 || !strings.Contains(out, "was cut") {
		t.Errorf("verify of a cut log: exit %d\n%s", code, out)
	}
	sameSums(t, "cut log", before, fileSums(t, cut))

	// The next real open records it, so doctor and later verifies say so.
	s2, err := sqlite.Open(ctx, dead)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s2.WALNotice(ctx)
	s2.Close()
	if err != nil || !strings.Contains(n, "committed frames not yet copied") {
		t.Errorf("open did not record the lost log: %q %v", n, err)
	}
}

// TestCLI_VerifyContentHash: one changed letter in a fact's stored text
// (same length, so the page stays well-formed) fails verify.
func TestCLI_VerifyContentHash(t *testing.T) {
	c := newCLI(t)
	path := backupWith(t, c, "Carol owns the billing service", "Bob prefers vim")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(raw, []byte("billing service"))
	if i < 0 {
		t.Fatal("fact text not found in the file")
	}
	raw[i] = 'k' // "killing service"
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := c.run("", "verify", path)
	if code == 0 || !strings.Contains(out, "does not match its stored hash") {
		t.Errorf("verify of a changed fact: exit %d\n%s", code, out)
	}
}
