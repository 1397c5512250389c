package text_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem/text"
)

func TestStripForEmbedding(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"  plain   text\n\there ", "plain text here"},
		{"see https://example.com/a?b=c. Then go", "see Then go"},
		{"crash ![screenshot](https://x.io/a.png) on start", "crash on start"},
		{`bug <img width="300" src="https://x/y.png"> here`, "bug here"},
		{"read [the docs](https://d.io/x) first", "read the docs first"},
		{"edit cmd/holomem/main.go and README.md, then run", "edit and then run"},
		{"Ошибка в /etc/nginx/nginx.conf при запуске", "Ошибка в при запуске"},
		{"nul\x00byte \xff", "nul byte \uFFFD"},
	} {
		if got := text.StripForEmbedding(tt.in); got != tt.want {
			t.Errorf("StripForEmbedding(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIssueRefs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"no refs, C# a#1 &#12;", nil},
		{"fix(module #4409): Closes #12, fixes #12 and GH-7", []string{"#4409", "#12", "#7"}},
		{"see holomem/holomem#3 and https://github.com/Owner/Repo/pull/0045#issuecomment-1", []string{"holomem/holomem#3", "Owner/Repo#45"}},
		{"https://github.com/a/b/issues/9 https://github.com/a/b/blob/main/x.go#L10", []string{"a/b#9"}},
		{"#tag #0", nil},
	} {
		if got := text.IssueRefs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("IssueRefs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzStripForEmbedding(f *testing.F) {
	for _, s := range append(entitySeeds, "![a](b) <img src=x> [t](u) http://x.y/z", "[", "![](", "<img") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := text.StripForEmbedding(s)
		if !utf8.ValidString(out) || strings.Contains(out, "  ") || strings.TrimSpace(out) != out {
			t.Fatalf("StripForEmbedding(%q) = %q", s, out)
		}
		for _, f := range strings.Fields(strings.ToLower(out)) {
			for _, scheme := range []string{"http://", "https://"} {
				rest, ok := strings.CutPrefix(f, scheme)
				if r, _ := utf8.DecodeRuneInString(rest); ok && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
					t.Fatalf("StripForEmbedding(%q) = %q keeps a URL", s, out)
				}
			}
		}
		for _, r := range text.IssueRefs(s) {
			if !utf8.ValidString(r) || !strings.Contains(r, "#") {
				t.Fatalf("IssueRefs(%q) has %q", s, r)
			}
		}
	})
}
