//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "config.json")
	os.WriteFile(ok, []byte(`{"a":1}`), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2048), 0o600)
	tests := []struct {
		name, path string
		want       error
	}{
		{"Regular", ok, nil},
		{"FIFO", fifo, ErrNotRegular},
		{"DevZero", zero, ErrNotRegular},
		{"Directory", dir, ErrNotRegular},
		{"TooLarge", big, ErrTooLarge},
		{"Missing", filepath.Join(dir, "none"), fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(tc.path, 1024)
				done <- err
			}()
			select {
			case err := <-done:
				if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
					t.Errorf("ReadFile(%s) = %v, want %v", tc.name, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFile(%s) blocked", tc.name)
			}
		})
	}
}
