package holomem

import (
	"regexp"
	"strings"
	"testing"
)

// edgeKindSpec is the rule validEdgeKind implements by hand.
var edgeKindSpec = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

func TestValidEdgeKind(t *testing.T) {
	for _, s := range []string{
		"", "a", "z", "similar_to", "causal", "x-1", "a" + strings.Repeat("b", 63), "a" + strings.Repeat("b", 64),
		"A", "1a", "_a", "-a", "a b", "a.b", "aB", "a\n", "\na", "é", "aé", strings.Repeat("z", 65),
	} {
		if got, want := validEdgeKind(s), edgeKindSpec.MatchString(s); got != want {
			t.Errorf("validEdgeKind(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzValidEdgeKind(f *testing.F) {
	for _, s := range []string{"similar_to", "A", "a\n", "a-b_9", strings.Repeat("q", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validEdgeKind(s), edgeKindSpec.MatchString(s); got != want {
			t.Errorf("validEdgeKind(%q) = %v, want %v", s, got, want)
		}
	})
}
