package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_BackupOntoFullDisk: a backup into a full file system names that
// file system (it blamed the database's) and leaves neither the partial
// copy nor its journal behind. It needs root to mount a small tmpfs
// (skipped otherwise).
func TestCLI_BackupOntoFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	c := newCLI(t)
	for i := range 30 {
		c.ok("add", strings.Repeat("words to fill the backup past the small file system ", 20)+strings.Repeat("x", i))
	}
	dest := filepath.Join(mnt, "b.db")
	_, errs, code := c.run("", "backup", dest)
	if code == 0 {
		t.Fatal("backup into a 64 KiB file system succeeded")
	}
	if !strings.Contains(errs, mnt) || strings.Contains(errs, "holding the database") {
		t.Errorf("the error does not name the backup's file system:\n%s", errs)
	}
	left, _ := filepath.Glob(filepath.Join(mnt, "*"))
	if len(left) > 0 {
		t.Errorf("a failed backup left %v", left)
	}
}
