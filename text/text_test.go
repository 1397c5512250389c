package text_test

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/holomem/holomem/text"
)

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"hello", "hello"},
		{"Hello WORLD", "hello world"},
		{"Ёлка ЁЖ ёж", "елка еж еж"},
		{"ПРИВЕТ Мир", "привет мир"},
		{"a\x00b\tc\nd\x7fe\u0085f", "a b c d e f"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"\xc3", "\uFFFD"},
		{"ÀÉÎ ǅ", "àéî ǆ"},
	} {
		if got := text.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "Ёж", "a\x00b", "\xff", "ÀÉÎ", "İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := text.Normalize(s)
		if !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q: invalid UTF-8", s, n)
		}
		if text.Normalize(n) != n {
			t.Fatalf("Normalize not idempotent on %q: %q -> %q", s, n, text.Normalize(n))
		}
		for _, tok := range text.Tokens(s) {
			if tok == "" || !utf8.ValidString(tok) {
				t.Fatalf("Tokens(%q) has bad token %q", s, tok)
			}
		}
	})
}

func TestTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ,.;  ", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"snake_case kebab-case", []string{"snake", "case", "kebab", "case"}},
		{"v1.2.3 x86_64", []string{"v1", "2", "3", "x86", "64"}},
		{"Ёлка Россия", []string{"елка", "россия"}},
		{"中文字符 日本語", []string{"中文字符", "日本語"}},
		{"C++ -rf title:x", []string{"c", "rf", "title", "x"}},
		{"a\u0301b \u0301 x", []string{"a\u0301b", "x"}},
		{"bad\xffbyte", []string{"bad", "byte"}},
	} {
		if got := text.Tokens(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"россия", "россии", "россию", "россией"},
		{"deploy", "deployed", "deploying", "deploys"},
		{"конфигурация", "конфигурации", "конфигурацию"},
		{"connection", "connections"},
	} {
		want := text.Stem(group[0])
		for _, w := range group[1:] {
			if got := text.Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want equal", w, got, group[0], want)
			}
		}
	}
	for _, tok := range []string{"", "x", "ab", "v2", "x86", "中文字符", "abcабв", "2024", "ελληνικά", "🚀"} {
		if got := text.Stem(tok); got != tok {
			t.Errorf("Stem(%q) = %q, want unchanged", tok, got)
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"deploying", "россию", "ёж", "café", "a\u0301", "'s", "yyyy", "ъъъ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range append(text.Tokens(s), s) {
			st := text.Stem(tok)
			if tok != "" && st == "" {
				t.Fatalf("Stem(%q) is empty", tok)
			}
		}
		_ = text.IndexText(s)
	})
}

func TestIndexText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"!!!", ""},
		{"Nginx deployed", "nginx deployed deploy"},
		{"deploy deployed deploying", "deploy deployed deploying deploy"},
		{"Россия, России!", "россия россии росс"},
		{"v2 中文", "v2 中文"},
	} {
		if got := text.IndexText(tt.in); got != tt.want {
			t.Errorf("IndexText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJaccard(t *testing.T) {
	for _, tt := range []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 0},
		{[]string{"a"}, nil, 0},
		{[]string{"a", "b"}, []string{"a", "b"}, 1},
		{[]string{"a", "b", "a"}, []string{"b", "c"}, 1.0 / 3},
		{[]string{"x"}, []string{"y"}, 0},
	} {
		if got := text.Jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("Jaccard(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := text.JaccardSorted(text.SortedSet(tt.a), text.SortedSet(tt.b)); got != tt.want {
			t.Errorf("JaccardSorted(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if got, want := len(text.TokenSet([]string{"a", "b", "a"})), 2; got != want {
		t.Errorf("len(TokenSet) = %d, want %d", got, want)
	}
}

// TestJaccard_large checks the map-free quadratic path against the sorted
// path on inputs on both sides of the switch.
func TestJaccard_large(t *testing.T) {
	for _, n := range []int{5, 20, 40, 100} {
		var a, b []string
		for i := range n {
			a = append(a, string(rune('a'+i%26))+string(rune('a'+i%7)))
			b = append(b, string(rune('a'+i%13))+string(rune('a'+i%5)))
		}
		got, want := text.Jaccard(a, b), text.JaccardSorted(text.SortedSet(a), text.SortedSet(b))
		if got != want {
			t.Errorf("n=%d: Jaccard = %v, JaccardSorted = %v", n, got, want)
		}
	}
}

func TestShingles(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		n    int
		want []string
	}{
		{nil, 2, nil},
		{[]string{"a", "b"}, 0, nil},
		{[]string{"a"}, 2, []string{"a"}},
		{[]string{"a", "b"}, 2, []string{"a b"}},
		{[]string{"a", "b", "c", "d"}, 3, []string{"a b c", "b c d"}},
		{[]string{"a", "b", "c"}, 1, []string{"a", "b", "c"}},
	} {
		if got := text.Shingles(tt.in, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("Shingles(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestStems(t *testing.T) {
	got := text.Stems(text.Tokens("Deploying nginx в России"))
	if want := []string{"deploy", "nginx", "в", "росс"}; !slices.Equal(got, want) {
		t.Errorf("Stems = %q, want %q", got, want)
	}
	if a, b := text.Tokens("deployed to Россию"), text.Tokens("deploying in России"); text.Jaccard(text.Stems(a), text.Stems(b)) <= text.Jaccard(a, b) {
		t.Errorf("Jaccard over stems should beat Jaccard over tokens for inflected forms")
	}
}
