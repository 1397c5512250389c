package sqlite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// TestOpen_CutWAL: a write-ahead log cut inside a frame is recorded when
// the file is next opened (SQLite's recovery drops the tail silently and
// the first checkpoint deletes the log); a whole log, and one ending one
// frame header into a frame (a writer killed between a frame's header and
// its page), are not.
func TestOpen_CutWAL(t *testing.T) {
	ctx := t.Context()
	src := filepath.Join(t.TempDir(), "live.db")
	s, err := sqlite.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 30 {
		if _, err := s.CreateFact(ctx, &holomem.Fact{Namespace: "default", Content: fmt.Sprintf("fact %d kept in the log", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A copy of the open database: its committed writes are in the log.
	db, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(src + "-wal")
	if err != nil || len(wal) < 32+2*(24+4096) {
		t.Fatalf("no write-ahead log to cut (%d bytes, %v)", len(wal), err)
	}
	shm, err := os.ReadFile(src + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	// A cut on an OS page boundary looks like a killed writer's partial
	// frame; only the shared-memory index tells that frames it counted as
	// committed are gone.
	pageCut := len(wal)%os.Getpagesize() + os.Getpagesize()
	tests := []struct {
		name string
		cut  int  // bytes removed from the log's end
		shm  bool // the index is left beside the log
		want bool
	}{
		{"Whole", 0, false, false},
		{"WholeWithIndex", 0, true, false},
		{"KilledBetweenHeaderAndPage", 4096, false, false},
		{"CutInsideAPage", 1000, false, true},
		{"CutInsideAHeader", 4096 + 10, false, true},
		{"CutOnPageBoundary", pageCut, false, false},
		{"CutOnPageBoundaryWithIndex", pageCut, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "copy.db")
			if err := os.WriteFile(p, db, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p+"-wal", wal[:len(wal)-tt.cut], 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.shm {
				if err := os.WriteFile(p+"-shm", shm, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := sqlite.Open(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			n, err := c.WALNotice(ctx)
			c.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := n != ""; got != tt.want || (tt.want && !strings.Contains(n, "cut")) {
				t.Fatalf("notice = %q, want one: %v", n, tt.want)
			}
			// The notice outlives the log (the close checkpointed it away).
			c, err = sqlite.Open(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if again, _ := c.WALNotice(ctx); again != n {
				t.Fatalf("notice after reopening = %q, want %q", again, n)
			}
			if tt.want {
				if err := c.ClearWALNotice(ctx); err != nil {
					t.Fatal(err)
				}
				if n, _ := c.WALNotice(ctx); n != "" {
					t.Fatalf("notice after clearing = %q", n)
				}
			}
		})
	}
}
