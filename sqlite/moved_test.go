package sqlite_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// TestStore_FileDeletedOrReplaced: once the path no longer names the file
// the store holds open, writes fail with ErrStoreMoved instead of landing
// in a file no one will read; reads of the open file go on.
func TestStore_FileDeletedOrReplaced(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"Deleted", func(t *testing.T, path string) {
			for _, sfx := range []string{"", "-wal", "-shm"} {
				os.Remove(path + sfx)
			}
		}},
		{"ReplacedByRename", func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), "other.db")
			s, err := sqlite.Open(t.Context(), other)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "m.db")
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			f := &holomem.Fact{Namespace: "default", Content: "written before the change"}
			if _, err := s.CreateFact(ctx, f); err != nil {
				t.Fatal(err)
			}
			if err := s.CheckFile(); err != nil {
				t.Fatalf("CheckFile before the change: %v", err)
			}
			tt.change(t, path)
			if err := s.CheckFile(); !errors.Is(err, holomem.ErrStoreMoved) {
				t.Fatalf("CheckFile after the change = %v, want ErrStoreMoved", err)
			}
			_, err = s.CreateFact(ctx, &holomem.Fact{Namespace: "default", Content: "written after the change"})
			if !errors.Is(err, holomem.ErrStoreMoved) {
				t.Fatalf("write after the change = %v, want ErrStoreMoved", err)
			}
			if got, err := s.FindFactByID(ctx, f.ID); err != nil || got.Content != f.Content {
				t.Fatalf("read after the change = %v, %v", got, err)
			}
		})
	}
}
