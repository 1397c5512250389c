package backend_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/sqlite"
)

func TestOpen_UnknownSchemeListsKnown(t *testing.T) {
	for _, addr := range []string{"mysql://x", "MySQL://user:secret@host/db", "s3://bucket/key"} {
		t.Run(addr, func(t *testing.T) {
			t.Chdir(t.TempDir()) // a wrong fallback would create a file here
			s, err := backend.Open(t.Context(), addr, backend.Options{})
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) opened a store, want an error", addr)
			}
			if !errors.Is(err, holomem.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
			for _, want := range []string{"postgres://", "postgresql://", "sqlite:", "PATH"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q, does not list %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("err = %q shows the password", err)
			}
			if backend.IsFile(addr) || backend.IsRemote(addr) {
				t.Errorf("IsFile/IsRemote(%q) = true for an unknown scheme", addr)
			}
			if m, _ := filepath.Glob("*"); len(m) > 0 {
				t.Errorf("files created: %v", m)
			}
		})
	}
}

func TestOpen_SQLite(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		addr, path string
		o          backend.Options
	}{
		{filepath.Join(dir, "plain.db"), filepath.Join(dir, "plain.db"), backend.Options{}},
		{"sqlite:" + filepath.Join(dir, "scheme.db"), filepath.Join(dir, "scheme.db"), backend.Options{}},
		{filepath.Join(dir, "oneshot.db"), filepath.Join(dir, "oneshot.db"), backend.Options{OneShot: true}},
		// One letter is a drive, not a scheme.
		{"c://" + filepath.Join(dir, "drive.db"), "c://" + filepath.Join(dir, "drive.db"), backend.Options{}},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			if !backend.IsFile(tt.addr) || backend.IsRemote(tt.addr) {
				t.Errorf("IsFile, IsRemote = %v, %v; want true, false", backend.IsFile(tt.addr), backend.IsRemote(tt.addr))
			}
			if got := backend.Path(tt.addr); got != tt.path {
				t.Errorf("Path = %q, want %q", got, tt.path)
			}
			if strings.HasPrefix(tt.addr, "c://") {
				return // not a path this machine has
			}
			s, err := backend.Open(t.Context(), tt.addr, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ss, ok := s.(*sqlite.Store)
			if !ok {
				t.Fatalf("Open(%q) = %T, want *sqlite.Store", tt.addr, s)
			}
			if ss.Path() != tt.path {
				t.Errorf("store path = %q, want %q", ss.Path(), tt.path)
			}
		})
	}
}

func TestOpen_PostgresBadAddressIsNotNilStore(t *testing.T) {
	s, err := backend.Open(t.Context(), "postgres://%zz", backend.Options{})
	if err == nil || s != nil {
		t.Fatalf("Open(bad postgres address) = %v, %v; want nil, an error", s, err)
	}
	if !backend.IsRemote("POSTGRESQL://h/db") || backend.IsFile("postgres://h/db") {
		t.Error("a postgres address is not remote")
	}
	if got := backend.Redact("postgres://u:secret@h/db"); strings.Contains(got, "secret") {
		t.Errorf("Redact = %q shows the password", got)
	}
}

func TestOpen_Postgres(t *testing.T) {
	addr := pgtest.Addr(t)
	s, err := backend.Open(t.Context(), addr, backend.Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*postgres.Store); !ok {
		t.Fatalf("Open(%s) = %T, want *postgres.Store", backend.Redact(addr), s)
	}
}

func TestSchemes(t *testing.T) {
	got := strings.Join(backend.Schemes(), " ")
	if want := "postgres:// postgresql:// sqlite: PATH"; got != want {
		t.Errorf("Schemes() = %q, want %q", got, want)
	}
}

func TestRegister_Twice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering sqlite: again did not panic")
		}
	}()
	backend.Register(backend.Backend{Name: "again", Schemes: []string{"SQLite:"}, Open: func(_ context.Context, _ string, _ backend.Options) (holomem.Store, error) {
		return nil, nil
	}})
}
