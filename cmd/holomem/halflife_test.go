package main

import (
	"os"
	"path/filepath"
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
		{"-1", -time.Nanosecond, true},
		{"-0.5", -time.Nanosecond, true},
		{"-inf", 0, false},
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

// TestCLI_HalfLifeNegativeNoDecay: "negative: no decay", as the help says,
// for "-1" (refused before) and "-1d" alike, and for history categories
// too (a ten-year-old commit kept decaying under -1d).
func TestCLI_HalfLifeNegativeNoDecay(t *testing.T) {
	c := newCLI(t)
	jsonl := filepath.Join(t.TempDir(), "old.jsonl")
	old := `"created_at":"2016-01-01T00:00:00Z","updated_at":"2016-01-01T00:00:00Z"`
	lines := `{"type":"header","format":"holomem-jsonl","version":1}
{"type":"fact","id":1,"namespace":"default","content":"the cache eviction fix","category":"commit",` + old + `}
{"type":"fact","id":2,"namespace":"default","content":"a note on cache eviction","category":"general",` + old + `}
`
	if err := os.WriteFile(jsonl, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("import", jsonl)
	for _, hl := range []string{"-1", "-1d", "-720h"} {
		for _, args := range [][]string{{"recall", "cache eviction", "--half-life", hl}, {"--half-life=" + hl, "recall", "cache eviction"}} {
			var res struct {
				Hits []struct {
					Decay float64 `json:"decay"`
					Fact  struct {
						Category string `json:"category"`
					} `json:"fact"`
				} `json:"hits"`
			}
			c.json(&res, args...)
			if len(res.Hits) != 2 {
				t.Fatalf("%v: %d hits, want 2", args, len(res.Hits))
			}
			for _, h := range res.Hits {
				if h.Decay != 1 {
					t.Errorf("%v: %s fact has decay %v, want 1 (no decay)", args, h.Fact.Category, h.Decay)
				}
			}
		}
	}
	t.Setenv("HOLOMEM_HALF_LIFE", "-1")
	c.ok("recall", "cache eviction")
}
