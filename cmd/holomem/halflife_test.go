package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseHalfLife(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90d", 90 * 24 * time.Hour, true},
		{"1.5d", 36 * time.Hour, true},
		{"720h", 720 * time.Hour, true},
		{"-1h", -time.Hour, true},
		{"-1d", -24 * time.Hour, true},
		{" 30d ", 30 * 24 * time.Hour, true},
		{"90", 0, false},
		{"d", 0, false},
		{"ninety days", 0, false},
		{"1e9d", 0, false},
		{"NaNd", 0, false},
	}
	for _, tt := range tests {
		got, err := parseHalfLife(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseHalfLife(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzParseHalfLife(f *testing.F) {
	for _, s := range []string{"90d", "720h", "1.5d", "-3d", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseHalfLife(s)
		if err == nil && strings.HasSuffix(strings.TrimSpace(s), "d") && d != 0 && (d > 0) != !strings.HasPrefix(strings.TrimSpace(s), "-") {
			t.Errorf("parseHalfLife(%q) = %v: sign flipped", s, d)
		}
	})
}

// TestCLI_HalfLifeEnv: HOLOMEM_HALF_LIFE=90d works; a value that does not
// parse fails the command (exit 4) instead of being ignored, unless
// --half-life replaces it.
func TestCLI_HalfLifeEnv(t *testing.T) {
	c := newCLI(t)
	t.Setenv("HOLOMEM_HALF_LIFE", "90d")
	c.ok("add", "a fact to recall")
	c.ok("recall", "fact")
	t.Setenv("HOLOMEM_HALF_LIFE", "ninety")
	_, errs, code := c.run("", "recall", "fact")
	if code != exitInvalid || !strings.Contains(errs, "HOLOMEM_HALF_LIFE") {
		t.Errorf("bad HOLOMEM_HALF_LIFE: exit %d, stderr %q; want exit %d naming the variable", code, errs, exitInvalid)
	}
	c.ok("recall", "fact", "--half-life", "30d")
	if _, _, code := c.run("", "recall", "fact", "--half-life", "3 days"); code != exitUsage {
		t.Errorf("--half-life '3 days': exit %d, want %d", code, exitUsage)
	}
}

func TestCLI_Version(t *testing.T) {
	c := newCLI(t)
	if out := c.ok("--version"); !strings.Contains(out, version) {
		t.Errorf("--version = %q, want it to contain %q", out, version)
	}
}
