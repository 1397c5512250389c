package sqlite_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// Environment of helper processes (see TestHelperProcess).
const (
	envHelper = "HOLOMEM_SQLITE_HELPER"
	envDB     = "HOLOMEM_SQLITE_DB"
	envArg    = "HOLOMEM_SQLITE_ARG"
)

// helper starts this test binary again as a helper process doing role.
func helper(t *testing.T, role, db, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), envHelper+"="+role, envDB+"="+db, envArg+"="+arg)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestHelperProcess is not a test: it is the body of the helper processes
// the multi-process tests start.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(envHelper)
	if role == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	db, arg := os.Getenv(envDB), os.Getenv(envArg)
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", role, err)
		os.Exit(2)
	}
	switch role {
	case "writer":
		// arg is "name:count": insert count facts one transaction each.
		name, num, _ := strings.Cut(arg, ":")
		n, _ := strconv.Atoi(num)
		s, err := sqlite.Open(ctx, db)
		if err != nil {
			fail(err)
		}
		for i := range n {
			f := &holomem.Fact{Content: fmt.Sprintf("writer %s fact %d", name, i), HRR: []byte(name)}
			if _, err := s.CreateFact(ctx, f); err != nil {
				fail(err)
			}
		}
		if err := s.Close(); err != nil {
			fail(err)
		}
	case "looper":
		// Insert until killed, printing the id of every committed fact.
		s, err := sqlite.Open(ctx, db)
		if err != nil {
			fail(err)
		}
		out := bufio.NewWriter(os.Stdout)
		for i := 0; ; i++ {
			f := &holomem.Fact{Content: fmt.Sprintf("looper fact %d about Survival", i), HRR: make([]byte, 1025)}
			if _, err := s.CreateFact(ctx, f); err != nil {
				fail(err)
			}
			fmt.Fprintf(out, "%d %d\n", f.ID, i)
			out.Flush()
		}
	case "foreign":
		// Another tool: plain driver, no holomem_fts function registered.
		raw, err := sql.Open("sqlite", db)
		if err != nil {
			fail(err)
		}
		var n int
		if err := raw.QueryRow("SELECT count(*) FROM facts_fts WHERE facts_fts MATCH 'apple'").Scan(&n); err != nil || n != 1 {
			fail(fmt.Errorf("search without the function: %d, %v", n, err))
		}
		if _, err := raw.Exec("UPDATE facts SET trust = 0.9"); err != nil {
			fail(fmt.Errorf("metadata update without the function: %w", err))
		}
		if _, err := raw.Exec("DELETE FROM facts WHERE content = 'apple pie'"); err != nil {
			fail(fmt.Errorf("delete without the function: %w", err))
		}
		_, err = raw.Exec("INSERT INTO facts (namespace, content, content_hash, category, trust, created_at, updated_at) VALUES ('default', 'x', 1, 'general', 0.5, 0, 0)")
		if err == nil || !strings.Contains(err.Error(), "holomem_fts") {
			fail(fmt.Errorf("insert without the function: %v, want no such function", err))
		}
		raw.Close()
	default:
		fail(errors.New("unknown role"))
	}
	os.Exit(0)
}

func TestStore_MultiProcessWriters(t *testing.T) {
	n := 500
	if testing.Short() || raceEnabled {
		n = 100
	}
	db := filepath.Join(t.TempDir(), "shared.db")
	a, b := helper(t, "writer", db, "a:"+strconv.Itoa(n)), helper(t, "writer", db, "b:"+strconv.Itoa(n))
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	errA, errB := a.Wait(), b.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("writers: %v, %v", errA, errB)
	}
	s := mustOpen(t, db)
	fs, total, err := s.FindFacts(t.Context(), holomem.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if total != 2*n {
		t.Fatalf("total = %d, want %d", total, 2*n)
	}
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Content] = true
	}
	for _, w := range []string{"a", "b"} {
		for i := range n {
			if c := fmt.Sprintf("writer %s fact %d", w, i); !seen[c] {
				t.Fatalf("missing %q", c)
			}
		}
	}
	if ms, err := s.SearchText(t.Context(), "", "writer fact", 2*n); err != nil || len(ms) != 2*n {
		t.Errorf("SearchText = %d hits, %v; want %d", len(ms), err, 2*n)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Error(err)
	}
}

func TestStore_KilledWriter(t *testing.T) {
	db := filepath.Join(t.TempDir(), "killed.db")
	cmd := helper(t, "looper", db, "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := map[int64]int{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(committed) < 60 {
		var id int64
		var i int
		if _, err := fmt.Sscanf(sc.Text(), "%d %d", &id, &i); err != nil {
			t.Fatalf("helper said %q", sc.Text())
		}
		committed[id] = i
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if len(committed) < 60 {
		t.Fatalf("helper committed only %d facts before it stopped", len(committed))
	}

	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	var res string
	if err := raw.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check = %q, %v", res, err)
	}
	raw.Close()

	s := mustOpen(t, db)
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id, i := range committed {
		f, err := s.FindFactByID(t.Context(), id)
		if err != nil {
			t.Fatalf("committed fact %d: %v", id, err)
		}
		if want := fmt.Sprintf("looper fact %d about Survival", i); f.Content != want || len(f.Entities) == 0 {
			t.Fatalf("fact %d = %q %q, want %q with its entity", id, f.Content, f.Entities, want)
		}
	}
	// The store keeps working after the crash.
	if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: "after the crash"}); err != nil {
		t.Fatal(err)
	}
	ids, err := s.FactIDsByEntity(t.Context(), "", "survival")
	if err != nil || len(ids) < len(committed) {
		t.Errorf("FactIDsByEntity = %d ids, %v; want at least %d", len(ids), err, len(committed))
	}
}

func TestStore_ForeignTool(t *testing.T) {
	db := filepath.Join(t.TempDir(), "foreign.db")
	s := mustOpen(t, db)
	for _, c := range []string{"apple pie", "banana bread"} {
		if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	if err := helper(t, "foreign", db, "").Run(); err != nil {
		t.Fatalf("foreign tool: %v", err)
	}
	fs, n, err := s.FindFacts(t.Context(), holomem.FactFilter{})
	if err != nil || n != 1 || fs[0].Content != "banana bread" || fs[0].Trust != 0.9 {
		t.Fatalf("after the foreign tool: %v %d %v", fs, n, err)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Error(err)
	}
}

func TestOpen_ErrSchema(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := filepath.Join(dir, "other.db")
	raw, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	tests := []struct {
		name, path, want string
	}{
		{"Text", write("notes.txt", []byte("these are my notes, not a database\n")), "not a holomem database"},
		{"Short", write("short", []byte("SQLite")), "not a holomem database"},
		{"Garbage", write("garbage.db", make([]byte, 8192)), "not a holomem database"},
		{"OtherSQLite", other, "not a holomem database"},
		{"Directory", dir, "not a holomem database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := sqlite.Open(t.Context(), tt.path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, holomem.ErrSchema) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %v, want ErrSchema saying %q", err, tt.want)
			}
		})
	}
	// The files were not changed.
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "these are my notes, not a database\n" {
		t.Errorf("Open changed a text file to %q", b)
	}
}

func TestOpen_NewerSchema(t *testing.T) {
	db := filepath.Join(t.TempDir(), "newer.db")
	s, err := sqlite.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", sqlite.LatestSchema+1)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	s, err = sqlite.Open(t.Context(), db)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded")
	}
	want := fmt.Sprintf("written by a newer holomem (schema %d, this binary knows %d): upgrade holomem", sqlite.LatestSchema+1, sqlite.LatestSchema)
	if !errors.Is(err, holomem.ErrSchema) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Open = %v, want ErrSchema %q", err, want)
	}
}

func TestOpen_Reopen(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a", "b", "c", "holomem.db")
	s, err := sqlite.Open(t.Context(), db)
	if err != nil {
		t.Fatalf("Open with missing parent directories: %v", err)
	}
	f := &holomem.Fact{Content: "Persisted across opens by Grace", Tags: []string{"good first issue"}, HRR: []byte{1, 2, 3}}
	if _, err := s.CreateFact(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Tags, []string{"good-first-issue"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("Tags = %q, want %q", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: "x"}); err == nil {
		t.Error("CreateFact on a closed store succeeded")
	}
	s = mustOpen(t, db)
	if v, err := s.SchemaVersion(t.Context()); err != nil || v != sqlite.LatestSchema {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, sqlite.LatestSchema)
	}
	got, err := s.FindFactByID(t.Context(), f.ID)
	if err != nil || got.Content != f.Content || len(got.Entities) == 0 {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	if ms, err := s.SearchText(t.Context(), "", "persisted", 5); err != nil || len(ms) != 1 {
		t.Errorf("SearchText after reopen = %v, %v", ms, err)
	}
	if s.Path() != db {
		t.Errorf("Path = %q, want %q", s.Path(), db)
	}
	st, err := s.Stats(t.Context(), "")
	if err != nil || st.SizeBytes <= 0 || st.Path != db {
		t.Errorf("Stats = %+v, %v", st, err)
	}
}

func TestOpen_PathWithURICharacters(t *testing.T) {
	db := filepath.Join(t.TempDir(), "odd?name#1%20.db")
	s := mustOpen(t, db)
	if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("database not at %q: %v", db, err)
	}
	for _, p := range []string{"", "  ", ":memory:", "file:x.db"} {
		if _, err := sqlite.Open(t.Context(), p); !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want ErrInvalid", p, err)
		}
	}
}

func TestStore_Backup(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, filepath.Join(dir, "src.db"))
	for i := range 20 {
		if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: fmt.Sprintf("Backup fact %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(dir, "backups", "copy.db")
	if err := s.Backup(t.Context(), dst); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(t.Context(), dst); !errors.Is(err, holomem.ErrConflict) {
		t.Errorf("Backup over an existing file = %v, want ErrConflict", err)
	}
	c := mustOpen(t, dst)
	if _, n, err := c.FindFacts(t.Context(), holomem.FactFilter{}); err != nil || n != 20 {
		t.Errorf("backup has %d facts, %v; want 20", n, err)
	}
	if ms, err := c.SearchText(t.Context(), "", "backup", 50); err != nil || len(ms) != 20 {
		t.Errorf("backup search = %d, %v", len(ms), err)
	}
	if err := c.Check(t.Context()); err != nil {
		t.Error(err)
	}
}

func TestStore_Reindex(t *testing.T) {
	db := filepath.Join(t.TempDir(), "reindex.db")
	s := mustOpen(t, db)
	if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: "Deploying services"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Reindex(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ms, err := s.SearchText(t.Context(), "", "deployed service", 5); err != nil || len(ms) != 1 || ms[0].Score != 1 {
		t.Errorf("after Reindex: %v, %v", ms, err)
	}
	// A changed fingerprint (a new stemmer) makes Open rebuild the index.
	if err := s.SetMeta(t.Context(), "sqlite.fts_fingerprint", "old"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = mustOpen(t, db)
	if v, err := s.Meta(t.Context(), "sqlite.fts_fingerprint"); err != nil || v == "old" {
		t.Errorf("fingerprint after reopen = %q, %v", v, err)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Error(err)
	}
}

func TestStore_Clock(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s := mustOpen(t, filepath.Join(t.TempDir(), "clock.db"), sqlite.WithClock(func() time.Time { return now }))
	f := &holomem.Fact{Content: "clocked"}
	if _, err := s.CreateFact(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	if !f.CreatedAt.Equal(now) {
		t.Errorf("CreatedAt = %v, want %v", f.CreatedAt, now)
	}
	g := &holomem.Fact{Content: "other"}
	s.CreateFact(t.Context(), g)
	if _, err := s.CreateEdge(t.Context(), &holomem.Edge{From: f.ID, To: g.ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * 24 * time.Hour)
	st, err := s.Stats(t.Context(), "")
	if err != nil || len(st.EdgeActivity) != 1 || !st.EdgeActivity[0].Stalled {
		t.Errorf("EdgeActivity ten days later = %+v, %v; want stalled", st.EdgeActivity, err)
	}
}

// TestOpen_MigratesOldFTS builds a schema-1 database (the first full-text
// layout) with facts in it and checks that Open migrates it and that search
// finds the old facts.
func TestOpen_MigratesOldFTS(t *testing.T) {
	// Open once so the holomem_fts function is registered in this process.
	mustOpen(t, filepath.Join(t.TempDir(), "register.db"))
	init, err := os.ReadFile("migration/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{string(init), "PRAGMA user_version = 1", "PRAGMA application_id = 1752132719",
		`INSERT INTO facts (namespace, content, content_hash, category, trust, created_at, updated_at)
			VALUES ('default', 'Old deployments of Grafana', 1, 'general', 0.5, 0, 0),
			       ('team', 'Old deployments elsewhere', 2, 'general', 0.5, 0, 0)`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%.40s: %v", q, err)
		}
	}
	raw.Close()
	s := mustOpen(t, db)
	if v, _ := s.SchemaVersion(t.Context()); v != sqlite.LatestSchema {
		t.Errorf("SchemaVersion = %d, want %d", v, sqlite.LatestSchema)
	}
	ms, err := s.SearchText(t.Context(), "", "deploying", 10)
	if err != nil || len(ms) != 1 || ms[0].ID != 1 {
		t.Errorf("SearchText after migration = %v, %v; want fact 1 only", ms, err)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Error(err)
	}
	// Migration 0005 keeps the old ids and continues after the largest,
	// even once that fact is forgotten.
	if err := s.DeleteFact(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	f := &holomem.Fact{Content: "a new fact after the migration"}
	if _, err := s.CreateFact(t.Context(), f); err != nil || f.ID != 3 {
		t.Errorf("first fact after migrating and forgetting #2 = #%d, %v; want #3", f.ID, err)
	}
}
