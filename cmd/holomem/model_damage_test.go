package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/holomem/holomem/internal/testkit/testutil"
)

// TestCLI_DamagedModelDegrades: a model directory whose files are damaged
// (garbage config, a bad safetensors header, weights linked to /dev/zero,
// a FIFO under the weights' name) makes add, recall, doctor and mcp run
// on the other channels with a note, as a missing model does: no exit 4,
// no hang.
func TestCLI_DamagedModelDegrades(t *testing.T) {
	tiny := t.TempDir()
	testutil.WriteTinyModel(t, tiny)
	damages := map[string]func(dir string) error{
		"garbage config": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "config.json"), []byte("{not json at all"), 0o600)
		},
		"bad safetensors header": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "model.safetensors"), []byte("\xff\xff\xff\xff\xff\xff\xff\x7fgarbage"), 0o600)
		},
		"link to /dev/zero": func(dir string) error {
			p := filepath.Join(dir, "model.safetensors")
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		},
		"config is /dev/zero": func(dir string) error {
			p := filepath.Join(dir, "config.json")
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		},
		"truncated weights": func(dir string) error {
			p := filepath.Join(dir, "model.safetensors")
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, fi.Size()/2)
		},
		"fifo": func(dir string) error {
			p := filepath.Join(dir, "model.safetensors")
			os.Remove(p)
			return syscall.Mkfifo(p, 0o600)
		},
	}
	for name, damage := range damages {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			if err := os.CopyFS(dir, os.DirFS(tiny)); err != nil {
				t.Fatal(err)
			}
			if err := damage(dir); err != nil {
				t.Fatal(err)
			}
			c := newCLI(t)
			run := func(args ...string) (string, string, int) {
				t.Helper()
				type res struct {
					out, errs string
					code      int
				}
				done := make(chan res, 1)
				go func() {
					o, e, code := c.run("", append([]string{"--model", dir}, args...)...)
					done <- res{o, e, code}
				}()
				select {
				case r := <-done:
					return r.out, r.errs, r.code
				case <-time.After(30 * time.Second):
					t.Fatalf("holomem %v blocked on the damaged model", args)
					return "", "", -1
				}
			}
			for _, args := range [][]string{{"add", "We deploy nginx with Ansible"}, {"recall", "nginx"}} {
				out, errs, code := run(args...)
				if code != 0 || !strings.Contains(errs, "unusable") {
					t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
				}
			}
			out, _, code := run("--json", "doctor")
			var doc struct {
				ModelStatus string `json:"model_status"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !strings.Contains(doc.ModelStatus, "unusable") || !strings.Contains(doc.ModelStatus, "model pull") {
				t.Errorf("doctor: exit %d, %s", code, out)
			}
			// mcp starts and ends at the end of its (empty) input.
			empty, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer empty.Close()
			stdin := os.Stdin
			os.Stdin = empty
			defer func() { os.Stdin = stdin }()
			if _, errs, code := run("mcp", "--hook-socket=false"); code != 0 {
				t.Errorf("mcp: exit %d: %s", code, errs)
			}
		})
	}
}
