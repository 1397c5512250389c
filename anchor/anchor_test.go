//go:build unix

package anchor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
)

func sha(b string) string {
	s := sha256.Sum256([]byte(b))
	return hex.EncodeToString(s[:])
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestValidateAnchorPath(t *testing.T) {
	tests := []struct {
		path string
		ok   bool
	}{
		{"deploy.yml", true},
		{"deploy/nginx.yml", true},
		{"docs/Заметки.md", true},
		{"", false},
		{"   ", false},
		{"/etc/passwd", false},
		{"/dev/zero", false},
		{"../etc/passwd", false},
		{"a/../../etc/passwd", false},
		{"a/./b", false},
		{"a//b", false},
		{"a/", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"C:/Windows/win.ini", false},
		{"\xff", false},
		{strings.Repeat("a", 5000), false},
	}
	for _, tt := range tests {
		err := holomem.ValidateAnchorPath(tt.path)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateAnchorPath(%q) = %v, want ok=%v", tt.path, err, tt.ok)
		}
		if err != nil && !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("ValidateAnchorPath(%q) = %v, not ErrInvalid", tt.path, err)
		}
	}
}

func TestRel(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(root, "deploy", "nginx.yml"), "x")
	write(t, filepath.Join(outside, "secret"), "s")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "deploy", "nginx.yml"), filepath.Join(root, "inside")); err != nil {
		t.Fatal(err)
	}
	got, err := anchor.Rel(root, filepath.Join(root, "deploy", "nginx.yml"))
	if err != nil || got != "deploy/nginx.yml" {
		t.Errorf("Rel(inside) = %q, %v", got, err)
	}
	if got, err := anchor.Rel(root, filepath.Join(root, "inside")); err != nil || got != "deploy/nginx.yml" {
		t.Errorf("Rel(symlink inside) = %q, %v; want the resolved path", got, err)
	}
	for _, p := range []string{
		filepath.Join(root, "..", "..", "..", "etc", "passwd"),
		filepath.Join(outside, "secret"),
		filepath.Join(root, "link"),
		root,
	} {
		if _, err := anchor.Rel(root, p); !errors.Is(err, anchor.ErrOutside) {
			t.Errorf("Rel(%s) = %v, want ErrOutside", p, err)
		}
	}
	if _, err := anchor.Rel("", "x"); !errors.Is(err, anchor.ErrNoRoot) {
		t.Errorf("Rel without a root = %v, want ErrNoRoot", err)
	}
}

func TestHash(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(root, "a.txt"), "hello")
	write(t, filepath.Join(outside, "secret"), "s")
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "out"))
	os.Symlink("/dev/zero", filepath.Join(root, "zero"))
	os.Mkdir(filepath.Join(root, "dir"), 0o700)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(root, "big"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(anchor.MaxSize + 1) // sparse: no disk used
	big.Close()

	ctx := context.Background()
	if got, err := anchor.Hash(ctx, root, "a.txt"); err != nil || got != sha("hello") {
		t.Errorf("Hash(a.txt) = %q, %v", got, err)
	}
	tests := []struct {
		rel  string
		want error
	}{
		{"out", anchor.ErrOutside},
		{"zero", anchor.ErrOutside},
		{"../x", holomem.ErrInvalid},
		{"/dev/zero", holomem.ErrInvalid},
		{"dir", anchor.ErrNotRegular},
		{"fifo", anchor.ErrNotRegular}, // must not block waiting for a writer
		{"big", anchor.ErrTooLarge},
		{"missing", os.ErrNotExist},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() { _, err := anchor.Hash(ctx, root, tt.rel); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, tt.want) {
				t.Errorf("Hash(%s) = %v, want %v", tt.rel, err, tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Hash(%s) blocked", tt.rel)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := anchor.Hash(cancelled, root, "a.txt"); !errors.Is(err, context.Canceled) {
		t.Errorf("Hash with a cancelled context = %v", err)
	}
}

func TestChecker(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.txt"), "v1")
	c := anchor.NewChecker(root, nil)
	ctx := context.Background()
	a := &holomem.Anchor{Path: "a.txt", Hash: sha("v1")}
	if got := c.State(ctx, a); got != "" {
		t.Errorf("fresh anchor: %q", got)
	}
	write(t, filepath.Join(root, "a.txt"), "v2 longer") // size changes: the cache must not answer
	if got := c.State(ctx, a); got != anchor.Changed {
		t.Errorf("changed anchor: %q", got)
	}
	os.Remove(filepath.Join(root, "a.txt"))
	if got := c.State(ctx, a); got != anchor.Missing {
		t.Errorf("removed anchor: %q", got)
	}
	// Paths from older versions (absolute) and anchors without a root are
	// not checked: nothing is read, nothing is told.
	for _, tt := range []struct {
		c *anchor.Checker
		a *holomem.Anchor
	}{
		{c, &holomem.Anchor{Path: "/etc/passwd", Hash: sha("x")}},
		{c, &holomem.Anchor{Path: "/nonexistent", Hash: sha("x")}},
		{anchor.NewChecker("", func() string { return "" }), a},
		{c, nil},
	} {
		if got := tt.c.State(ctx, tt.a); got != "" {
			t.Errorf("State(%+v) = %q, want unchecked", tt.a, got)
		}
	}
	if err := c.Checkable(&holomem.Anchor{Path: "/etc/passwd"}); err == nil {
		t.Error("absolute anchor reported checkable")
	}
	calls := 0
	lazy := anchor.NewChecker("", func() string { calls++; return root })
	lazy.State(ctx, a)
	lazy.State(ctx, a)
	if calls != 1 {
		t.Errorf("findRoot called %d times, want once", calls)
	}
}
