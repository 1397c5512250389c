package importer

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzChunkBody: whatever the text and the bound, every chunk is within
// the bound, none is empty, and together they hold all of the text's
// non-space characters in order: chunking loses nothing but white space.
func FuzzChunkBody(f *testing.F) {
	f.Add("One sentence. Another one! A third?\n\nA new paragraph.", 20)
	f.Add("```\n# code\n\n## more code\n```\n\n- a\n- b\n- c", 10)
	f.Add(strings.Repeat("wordwithoutspaces", 40), 16)
	f.Add("日本語の文。"+strings.Repeat("長い", 100), 12)
	f.Fuzz(func(t *testing.T, body string, budget int) {
		if budget < 8 || budget > 2000 || !utf8.ValidString(body) {
			t.Skip()
		}
		parts := chunkBody(body, budget)
		for _, p := range parts {
			if n := utf8.RuneCountInString(p); n > budget || strings.TrimSpace(p) == "" {
				t.Fatalf("chunk of %d runes (bound %d): %q", n, budget, p)
			}
		}
		squeeze := func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) {
					return -1
				}
				return r
			}, s)
		}
		if got, want := squeeze(strings.Join(parts, "")), squeeze(body); got != want {
			t.Fatalf("text lost:\n got %q\nwant %q", got, want)
		}
	})
}
