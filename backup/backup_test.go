package backup

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPrune(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"holomem-20260101T000000Z.db", "holomem-20260102T000000Z.db", "holomem-20260103T000000Z.db", "other.db"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	removed, err := Prune(dir, 2)
	if err != nil || len(removed) != 1 || filepath.Base(removed[0]) != "holomem-20260101T000000Z.db" {
		t.Fatalf("removed %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); err != nil {
		t.Error("pruned a file that is not a backup")
	}
}
