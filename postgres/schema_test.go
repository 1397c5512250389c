package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
)

func execSQL(t *testing.T, addr, sql string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestOpen_newerSchemaRefused(t *testing.T) {
	addr := pgtest.Addr(t)
	s := mustOpen(t, addr)
	s.Close()
	execSQL(t, addr, "UPDATE holomem_schema SET version = 999")
	_, err := postgres.Open(t.Context(), addr)
	if !errors.Is(err, holomem.ErrSchema) {
		t.Fatalf("Open of a newer schema: err = %v, want ErrSchema", err)
	}
}

func TestOpen_otherProgramRefused(t *testing.T) {
	addr := pgtest.Addr(t)
	execSQL(t, addr, "CREATE TABLE facts (x int)")
	_, err := postgres.Open(t.Context(), addr)
	if !errors.Is(err, holomem.ErrSchema) {
		t.Fatalf("Open over another program's facts table: err = %v, want ErrSchema", err)
	}
}

func TestOpen_badAddress(t *testing.T) {
	for _, addr := range []string{"", "sqlite:/tmp/x.db", "/tmp/x.db", "postgres://u:secret@[bad"} {
		_, err := postgres.Open(t.Context(), addr)
		if !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("Open(%q): err = %v, want ErrInvalid", addr, err)
		}
		if err != nil && contains(err.Error(), "secret") {
			t.Errorf("Open(%q): error shows the password: %v", addr, err)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestOpen_concurrentMigrate opens one new schema from several goroutines
// (separate pools, as separate processes would): the advisory lock makes
// one of them migrate and the others find the schema current.
func TestOpen_concurrentMigrate(t *testing.T) {
	addr := pgtest.Addr(t)
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := postgres.Open(context.Background(), addr, postgres.WithMaxConns(2))
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	s := mustOpen(t, addr)
	v, err := s.SchemaVersion(t.Context())
	if err != nil || v != postgres.LatestSchema {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, postgres.LatestSchema)
	}
}

func TestIsAddress(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"postgres://localhost/db", true},
		{"postgresql://u@h:5432/db?sslmode=disable", true},
		{" POSTGRES://x", true},
		{"/home/me/.local/share/holomem/holomem.db", false},
		{"sqlite:/tmp/x.db", false},
		{"postgres.db", false},
	}
	for _, tt := range tests {
		if got := postgres.IsAddress(tt.in); got != tt.want {
			t.Errorf("IsAddress(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
